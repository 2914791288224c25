import { useState, type ReactNode } from 'react';
import { useMessage, useStartFlow } from '@verikit/react';
import type { ProvenPhone } from './phone-step.js';
import { signUp, type SignupAnswer } from './signup-api.js';
import { StartError } from './start-error.js';
import { StepHeading } from '@verikit/example-page-parts';
import { VerifyFlow } from './verify-flow.js';

/**
 * Step 2: the BVN, verified by a code sent to the phone registered for it; then the account is
 * created with both proofs.
 */
export function BvnStep({ phone, onDone }: { phone: ProvenPhone; onDone: (answer: SignupAnswer) => void }): ReactNode {
  const message = useMessage();
  const { start, view, isPending, error, reset } = useStartFlow();
  const [bvn, setBvn] = useState('');

  if (view !== undefined) {
    return (
      <VerifyFlow
        started={view}
        onStartOver={reset}
        verified={{
          title: message('bvn.verified'),
          action: message('bvn.create'),
          onProof: async (proof) =>
            onDone(
              await signUp({
                phoneNumber: phone.phoneNumber,
                bvn: bvn.trim(),
                phoneProof: phone.proof.token,
                bvnProof: proof.token,
              }),
            ),
        }}
      />
    );
  }
  return (
    <form
      data-status="bvn-form"
      onSubmit={(event) => {
        event.preventDefault();
        void start({ kind: 'identity', idType: 'bvn', number: bvn.trim() });
      }}
    >
      <StepHeading>{message('bvn.title')}</StepHeading>
      <p className="muted">{message('bvn.help')}</p>
      <label htmlFor="bvn">{message('bvn.label')}</label>
      <input
        id="bvn"
        name="bvn"
        inputMode="numeric"
        autoComplete="off"
        placeholder={message('bvn.placeholder')}
        value={bvn}
        onChange={(event) => setBvn(event.target.value)}
        required
      />
      <StartError error={error} field="number" />
      <button type="submit" className="primary" disabled={isPending}>
        {isPending ? message('start.sending') : message('bvn.submit')}
      </button>
    </form>
  );
}
