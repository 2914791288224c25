import { useState, type ReactNode } from 'react';
import { useMessage, useStartFlow } from '@verikit/react';
import type { Proof } from './signup-api.js';
import { StartError } from './start-error.js';
import { StepHeading } from './step-heading.js';
import { VerifyFlow } from './verify-flow.js';

/** A phone number the user proved is theirs. */
export interface ProvenPhone {
  readonly phoneNumber: string;
  readonly proof: Proof;
}

const methods = [
  { value: 'phone', label: 'phone.method.sms' },
  { value: 'ussd', label: 'phone.method.ussd' },
] as const;

/** Step 1: the phone number, verified by a code sent by SMS or by dialling a USSD code. */
export function PhoneStep({ onDone }: { onDone: (phone: ProvenPhone) => void }): ReactNode {
  const message = useMessage();
  const { start, view, isPending, error, reset } = useStartFlow();
  const [phoneNumber, setPhoneNumber] = useState('');
  const [method, setMethod] = useState<'phone' | 'ussd'>('phone');
  // Back from a flow ("Start again"): focus goes to the form's heading; on the first load it stays where the browser put it.
  const [returned, setReturned] = useState(false);

  if (view !== undefined) {
    return (
      <VerifyFlow
        started={view}
        onStartOver={() => {
          reset();
          setReturned(true);
        }}
        verified={{
          title: message('phone.verified'),
          action: message('phone.continue'),
          onProof: (proof) => onDone({ phoneNumber: phoneNumber.trim(), proof }),
        }}
      />
    );
  }
  return (
    <form
      data-status="phone-form"
      onSubmit={(event) => {
        event.preventDefault();
        void start({ kind: method, phoneNumber: phoneNumber.trim() });
      }}
    >
      <StepHeading focus={returned}>{message('phone.title')}</StepHeading>
      <label htmlFor="phone-number">{message('phone.label')}</label>
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
        <legend>{message('phone.method')}</legend>
        {methods.map(({ value, label }) => (
          <label key={value}>
            <input
              type="radio"
              name="method"
              value={value}
              checked={method === value}
              onChange={() => setMethod(value)}
            />{' '}
            {message(label)}
          </label>
        ))}
      </fieldset>
      <StartError error={error} field="phoneNumber" />
      <button type="submit" className="primary" disabled={isPending}>
        {isPending ? message(method === 'ussd' ? 'start.preparing' : 'start.sending') : message('phone.submit')}
      </button>
    </form>
  );
}
