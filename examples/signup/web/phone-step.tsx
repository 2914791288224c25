import { useEffect, useState, type ReactNode } from 'react';
import { useMessage, useStartFlow } from '@verikit/react';
import type { Proof } from './signup-api.js';
import { StartError } from './start-error.js';
import { StepHeading } from '@verikit/example-page-parts';
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
  const message = useMessage();
  const { start, resume, view, isPending, error, reset } = useStartFlow();
  const [phoneNumber, setPhoneNumber] = useState('');
  const [method, setMethod] = useState<'phone' | 'ussd'>('phone');
  // Back from a flow ("Start again"): focus goes to the form's heading; on the first load it stays where the browser put it.
  const [returned, setReturned] = useState(false);

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
        try {
          sessionStorage.setItem(draftKey, JSON.stringify({ phoneNumber: phoneNumber.trim(), method }));
        } catch {
          // Without storage a reload starts over; the server still resumes this browser's live flow.
        }
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
