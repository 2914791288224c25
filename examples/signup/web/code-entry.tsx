import { useState, type ReactNode } from 'react';
import type { FlowView } from '@verikit/client';
import { OtpInput, ResendButton, type UseFlowResult } from '@verikit/react';

/** Props of {@link CodeEntry}. */
export interface CodeEntryProps {
  flow: UseFlowResult;
  view: FlowView;
}

/**
 * The code the user received: the input (disabled while the server checks it), what went wrong
 * with the last code and the attempts left, and the resend button with its countdown.
 */
export function CodeEntry({ flow, view }: CodeEntryProps): ReactNode {
  const [code, setCode] = useState('');
  const checking = view.status === 'checking';
  const wrong = view.error?.code === 'code_invalid';
  // Once the server answered, the digits are cleared for the next try (a right code leaves this screen anyway).
  const submit = (complete: string): void => void flow.submitCode(complete).then(() => setCode(''));

  const destination =
    view.kind === 'identity'
      ? `the phone registered for your BVN (${view.number ?? ''})`
      : (view.phoneNumber ?? 'your phone');
  return (
    <>
      <h2>Enter the code</h2>
      <p>We sent a 6-digit code to {destination}.</p>
      <OtpInput
        className="otp"
        inputClassName="digit"
        value={code}
        onChange={setCode}
        onComplete={submit}
        disabled={checking}
        invalid={wrong}
        describedBy="code-help"
        autoFocus
      />
      <p id="code-help" className={wrong ? 'error' : 'muted'} role={wrong ? 'alert' : undefined}>
        {checking
          ? 'Checking…'
          : wrong
            ? `That code is not correct. ${view.attemptsLeft === 1 ? '1 attempt left.' : `${view.attemptsLeft ?? 0} attempts left.`}`
            : view.error !== undefined
              ? view.error.message
              : 'The code arrives by SMS.'}
      </p>
      <ResendButton flow={flow} className="secondary" />
    </>
  );
}
