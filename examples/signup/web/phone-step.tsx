import { useEffect, useState, type ReactNode } from 'react';
import type { FlowView } from '@verikit/client';
import { useFlowClient, useMessage, useStartFlow } from '@verikit/react';
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

interface Draft {
  readonly phoneNumber: string;
  readonly method: 'phone' | 'ussd';
  /** The flow started for it, once there is one. */
  readonly flowId?: string;
}

function readDraft(): Draft | undefined {
  try {
    const draft = JSON.parse(sessionStorage.getItem(draftKey) ?? 'null') as Record<string, unknown> | null;
    if (typeof draft?.phoneNumber === 'string' && (draft.method === 'phone' || draft.method === 'ussd'))
      return {
        phoneNumber: draft.phoneNumber,
        method: draft.method,
        ...(typeof draft.flowId === 'string' ? { flowId: draft.flowId } : {}),
      };
  } catch {
    // No storage, or not ours: nothing to resume.
  }
  return undefined;
}

function writeDraft(draft: Draft): void {
  try {
    sessionStorage.setItem(draftKey, JSON.stringify(draft));
  } catch {
    // Without storage a reload starts over; the server still resumes this browser's live flow.
  }
}

/** Step 1: the phone number, verified by a code sent by SMS or by dialling a USSD code. */
export function PhoneStep({ onDone }: { onDone: (phone: ProvenPhone) => void }): ReactNode {
  const message = useMessage();
  const client = useFlowClient();
  const { start, resume, view: startedView, isPending, error, reset } = useStartFlow();
  // A flow already verified before a reload, as the server reads it (a done flow is not resumed: it is shown).
  const [restored, setRestored] = useState<FlowView | undefined>(undefined);
  const view = startedView ?? restored;
  const [phoneNumber, setPhoneNumber] = useState('');
  const [method, setMethod] = useState<'phone' | 'ussd'>('phone');
  // Back from a flow ("Start again"): focus goes to the form's heading; on the first load it stays where the browser put it.
  const [returned, setReturned] = useState(false);

  // After a reload: the page asks the server how the flow this tab started stands. Verified, it shows that (and
  // the way on); still live, it is resumed (the client kept its handle), with no new code.
  useEffect(() => {
    const draft = readDraft();
    if (draft === undefined) return;
    setPhoneNumber(draft.phoneNumber);
    setMethod(draft.method);
    const input = { kind: draft.method, phoneNumber: draft.phoneNumber };
    void (async () => {
      const read = draft.flowId === undefined ? undefined : await client.get(draft.flowId).catch(() => undefined);
      if (read?.status === 'verified') setRestored(read);
      else await resume(input);
    })();
  }, [client, resume]);
  // The flow started is remembered with its number, so that a reload can ask the server about it.
  useEffect(() => {
    const draft = readDraft();
    if (startedView !== undefined && draft !== undefined && draft.flowId !== startedView.id)
      writeDraft({ ...draft, flowId: startedView.id });
  }, [startedView]);

  if (view !== undefined) {
    return (
      <VerifyFlow
        started={view}
        onStartOver={() => {
          reset();
          setRestored(undefined);
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
        writeDraft({ phoneNumber: phoneNumber.trim(), method });
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
