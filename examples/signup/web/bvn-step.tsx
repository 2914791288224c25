import { useState, type ReactNode } from 'react';
import { useStartFlow } from '@verikit/react';
import type { ProvenPhone } from './phone-step.js';
import { signUp, type SignupAnswer } from './signup-api.js';
import { StartError } from './start-error.js';
import { VerifyFlow } from './verify-flow.js';

/**
 * Step 2: the BVN, verified by a code sent to the phone registered for it; then the account is
 * created with both proofs.
 */
export function BvnStep({ phone, onDone }: { phone: ProvenPhone; onDone: (answer: SignupAnswer) => void }): ReactNode {
  const { start, view, isPending, error, reset } = useStartFlow();
  const [bvn, setBvn] = useState('');

  if (view !== undefined) {
    return (
      <VerifyFlow
        started={view}
        onStartOver={reset}
        verified={{
          title: 'BVN verified',
          action: 'Create my account',
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
      onSubmit={(event) => {
        event.preventDefault();
        void start({ kind: 'identity', idType: 'bvn', number: bvn.trim() });
      }}
    >
      <h2>Your BVN</h2>
      <p className="muted">We send a code to the phone number your bank has for it.</p>
      <label htmlFor="bvn">Bank Verification Number</label>
      <input
        id="bvn"
        name="bvn"
        inputMode="numeric"
        autoComplete="off"
        placeholder="11 digits"
        value={bvn}
        onChange={(event) => setBvn(event.target.value)}
        required
      />
      <StartError error={error} field="number" />
      <button type="submit" className="primary" disabled={isPending}>
        {isPending ? 'Sending your code…' : 'Verify my BVN'}
      </button>
    </form>
  );
}
