import { useEffect, useState, type ReactNode } from 'react';
import { useStartFlow } from '@verikit/react';
import type { Proof } from './signup-api.js';
import { StartError } from './start-error.js';
import { VerifyFlow } from './verify-flow.js';

/** A phone number the user proved is theirs. */
export interface ProvenPhone {
  readonly phoneNumber: string;
  readonly proof: Proof;
}

const methods = [
  { value: 'phone', label: 'Send me a code by SMS' },
  { value: 'ussd', label: 'I will dial a USSD code' },
] as const;

/** What this tab last asked to verify, so a reload resumes that flow instead of sending a new code. */
const draftKey = 'signup.phone-step';

function readDraft(): { phoneNumber: string; method: 'phone' | 'ussd' } | undefined {
  try {
    const draft = JSON.parse(sessionStorage.getItem(draftKey) ?? 'null') as { phoneNumber?: unknown; method?: unknown };
    if (typeof draft?.phoneNumber === 'string' && (draft.method === 'phone' || draft.method === 'ussd'))
      return { phoneNumber: draft.phoneNumber, method: draft.method };
  } catch {
    // No storage, or not ours: nothing to resume.
  }
  return undefined;
}

/** Step 1: the phone number, verified by a code sent by SMS or by dialling a USSD code. */
export function PhoneStep({ onDone }: { onDone: (phone: ProvenPhone) => void }): ReactNode {
  const { start, resume, view, isPending, error, reset } = useStartFlow();
  const [phoneNumber, setPhoneNumber] = useState('');
  const [method, setMethod] = useState<'phone' | 'ussd'>('phone');

  // After a reload: the flow this tab started is resumed (the client kept its handle), with no new code.
  useEffect(() => {
    const draft = readDraft();
    if (draft === undefined) return;
    setPhoneNumber(draft.phoneNumber);
    setMethod(draft.method);
    void resume({ kind: draft.method, phoneNumber: draft.phoneNumber });
  }, [resume]);

  if (view !== undefined) {
    return (
      <VerifyFlow
        started={view}
        onStartOver={reset}
        verified={{
          title: 'Phone number verified',
          action: 'Continue',
          onProof: (proof) => onDone({ phoneNumber: phoneNumber.trim(), proof }),
        }}
      />
    );
  }
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        try {
          sessionStorage.setItem(draftKey, JSON.stringify({ phoneNumber: phoneNumber.trim(), method }));
        } catch {
          // Without storage a reload starts over; the server still resumes this browser's live flow.
        }
        void start({ kind: method, phoneNumber: phoneNumber.trim() });
      }}
    >
      <h2>Your phone number</h2>
      <label htmlFor="phone-number">Phone number</label>
      <input
        id="phone-number"
        name="phoneNumber"
        type="tel"
        autoComplete="tel"
        placeholder="+2348012345678"
        value={phoneNumber}
        onChange={(event) => setPhoneNumber(event.target.value)}
        required
      />
      <fieldset>
        <legend>How should we verify it?</legend>
        {methods.map(({ value, label }) => (
          <label key={value}>
            <input
              type="radio"
              name="method"
              value={value}
              checked={method === value}
              onChange={() => setMethod(value)}
            />{' '}
            {label}
          </label>
        ))}
      </fieldset>
      <StartError error={error} field="phoneNumber" />
      <button type="submit" className="primary" disabled={isPending}>
        {isPending ? (method === 'ussd' ? 'Preparing your code…' : 'Sending your code…') : 'Verify my number'}
      </button>
    </form>
  );
}
