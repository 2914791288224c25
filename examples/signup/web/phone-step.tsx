import { useState, type ReactNode } from 'react';
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

/** Step 1: the phone number, verified by a code sent by SMS or by dialling a USSD code. */
export function PhoneStep({ onDone }: { onDone: (phone: ProvenPhone) => void }): ReactNode {
  const { start, view, isPending, error, reset } = useStartFlow();
  const [phoneNumber, setPhoneNumber] = useState('');
  const [method, setMethod] = useState<'phone' | 'ussd'>('phone');

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
