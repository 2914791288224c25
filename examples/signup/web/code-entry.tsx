import { useState, type ReactNode } from 'react';
import type { FlowView } from '@verikit/client';
import { OtpInput, ResendButton, useMessage, type UseFlowResult } from '@verikit/react';
import { errorId } from './messages.js';

/** Props of {@link CodeEntry}. */
export interface CodeEntryProps {
  flow: UseFlowResult;
  view: FlowView;
}

/**
 * The code the user received: the input (disabled, with "Checking…", from the moment a code is sent
 * until the answer), what went wrong with the last code and the attempts left, and the resend button
 * with its countdown.
 */
export function CodeEntry({ flow, view }: CodeEntryProps): ReactNode {
  const message = useMessage();
  const [code, setCode] = useState('');
  // The host of a pasted code that was sent for another site (refused, never filled), until the next digit typed.
  const [foreignHost, setForeignHost] = useState<string | undefined>(undefined);
  // The answer clears the digits and enables the fields in one render, so focus returns to the first digit.
  const [answering, setAnswering] = useState(false);
  const checking = flow.isChecking || answering;
  const wrong = view.error?.code === 'code_invalid';
  const submit = (complete: string): void => {
    if (checking) return;
    setAnswering(true);
    void flow.submitCode(complete).then((answer) => {
      // No answer (offline, the server out of reach): the digits stay, to send again with Enter once back online.
      if (answer !== undefined) setCode('');
      setAnswering(false);
    });
  };

  return (
    <>
      <h2>{message('code.title')}</h2>
      <p>{codeSentText(view, message)}</p>
      {/* WebOTP where the browser has it (an SMS ending "@this.site #123456" fills and submits with one tap); a
          pasted code that was sent for another site is refused and said so. */}
      <OtpInput
        className="otp"
        inputClassName="digit"
        value={code}
        onChange={(digits) => {
          setForeignHost(undefined);
          setCode(digits);
        }}
        onComplete={submit}
        onForeignCode={(bound) => setForeignHost(bound.host.slice(0, 64))}
        disabled={checking}
        invalid={(wrong && !checking) || foreignHost !== undefined}
        describedBy={foreignHost === undefined ? 'code-help' : 'code-foreign code-help'}
        autoFocus
      />
      {foreignHost === undefined ? null : (
        <p id="code-foreign" role="alert" className="error">
          {message('verikit.code.other_site', { host: foreignHost })}
        </p>
      )}
      <p id="code-help" className={wrong && !checking ? 'error' : 'muted'} data-checking={checking || undefined}>
        {checking
          ? message('code.checking')
          : wrong
            ? attemptsLeftText(message, view.attemptsLeft ?? 0)
            : view.error !== undefined
              ? message(errorId(view.error))
              : message('code.arrives')}
      </p>
      <ResendButton flow={flow} className="secondary" />
    </>
  );
}

/** "That code is not correct. 2 attempts left.": the plural form the language's rules choose (`code.wrong.one`, …). */
export function attemptsLeftText(message: ReturnType<typeof useMessage>, count: number): string {
  return message('code.wrong', { count });
}

/** "We sent a 6-digit code to +234…", to the phone registered for a BVN, or to "your phone" without a number. */
export function codeSentText(view: FlowView, message: ReturnType<typeof useMessage>): string {
  if (view.kind === 'identity') return message('code.sentForBvn', { number: view.number ?? '' });
  return view.phoneNumber === undefined
    ? message('code.sentToYourPhone')
    : message('code.sent', { phone: view.phoneNumber });
}
