import type { ReactNode } from 'react';
import type { FlowView } from '@verikit/client';
import { ResendButton, UssdInstructions, useCountdown, useFlow, type ResendButtonState } from '@verikit/react';
import { CodeEntry } from './code-entry.js';
import { VerifiedPanel, type VerifiedPanelProps } from './verified-panel.js';

/** Props of {@link VerifyFlow}. */
export interface VerifyFlowProps {
  /** The flow started, as `useStartFlow` returned it. */
  started: FlowView;
  /** Once the flow is verified: the title, the button that moves on, and what to do with the flow's proof. */
  verified: Omit<VerifiedPanelProps, 'flowId'>;
  /** Back to the form, for a flow that can no longer verify (locked, cancelled) or to use another number. */
  onStartOver: () => void;
}

/** "9:58" for a countdown in ms. */
function minutesAndSeconds(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/**
 * One verification, live: renders whatever state the flow is in (docs/ui.md, "What to render for
 * each status") and offers only the actions the server allows. The view updates by itself: a
 * USSD result arriving by webhook shows here without a reload.
 */
export function VerifyFlow({ started, verified, onStartOver }: VerifyFlowProps): ReactNode {
  const flow = useFlow(started.id, { initialView: started });
  const view = flow.view ?? started;
  const expiresIn = useCountdown(flow.localExpiresAt);
  const timeLeft =
    expiresIn === undefined || expiresIn <= 0 ? null : (
      <p className="muted">Expires in {minutesAndSeconds(expiresIn)}</p>
    );
  const canCancel = view.allowed.includes('cancel');

  return (
    <section className="flow" data-status={view.status} aria-live="polite">
      {body()}
      {flow.sendError === undefined ? null : (
        <p role="alert" className="error">
          {flow.sendError.message}
        </p>
      )}
      {flow.error !== undefined && flow.connection === 'reconnecting' ? <p className="muted">Reconnecting…</p> : null}
      {canCancel && view.status !== 'verified' ? (
        <button type="button" className="link" onClick={() => void flow.cancel().then(onStartOver)}>
          Cancel
        </button>
      ) : null}
    </section>
  );

  function body(): ReactNode {
    switch (view.status) {
      case 'initiating':
        return <p>Preparing your code…</p>;
      case 'sending':
        return <p>Sending your code to {view.phoneNumber ?? 'your phone'}…</p>;
      case 'awaiting-code':
      case 'checking':
        return (
          <>
            <CodeEntry flow={flow} view={view} />
            {timeLeft}
          </>
        );
      case 'awaiting-dial':
        return (
          <>
            <h2>Dial to verify</h2>
            <UssdInstructions className="ussd" ussdCode={view.ussdCode} otp={view.otp} />
            <p className="waiting">Waiting for your dial… this page updates by itself.</p>
            {timeLeft}
          </>
        );
      case 'send-failed':
        return (
          <>
            <h2>
              {view.error?.code === 'outcome_unknown'
                ? 'We could not confirm the code was sent'
                : 'The code could not be sent'}
            </h2>
            <p role="alert">
              {view.error?.code === 'outcome_unknown'
                ? 'The code may still arrive. If it does not, ask for a new one.'
                : (view.error?.message ?? 'Please try again.')}
            </p>
            <ResendButton flow={flow} className="secondary" />
          </>
        );
      case 'failed':
        return (
          <>
            <h2>
              {view.error?.code === 'outcome_unknown' ? 'We could not confirm your dial' : 'The verification failed'}
            </h2>
            <p role="alert">{view.error?.message ?? 'Please try again.'}</p>
            <ResendButton flow={flow} event="restart" className="secondary">
              {newCodeLabel}
            </ResendButton>
          </>
        );
      case 'expired':
        return (
          <>
            <h2>The code expired</h2>
            {/* Not done: a new code is possible once the cooldown ends, and the button counts it down. */}
            {!view.done ? (
              <ResendButton flow={flow} event={view.kind === 'ussd' ? 'restart' : 'resend'} className="secondary">
                {newCodeLabel}
              </ResendButton>
            ) : (
              <StartOver onStartOver={onStartOver} />
            )}
          </>
        );
      case 'locked':
        return (
          <>
            <h2>Too many wrong codes</h2>
            <p role="alert">This verification is locked. Start again in a little while.</p>
            <StartOver onStartOver={onStartOver} />
          </>
        );
      case 'cancelled':
        return <StartOver onStartOver={onStartOver} />;
      case 'verified':
        return <VerifiedPanel flowId={started.id} {...verified} />;
      default:
        return <p>Please wait…</p>;
    }
  }
}

/** The label of the button that asks for a new code (USSD restart, or resend after expiry), with its countdown. */
function newCodeLabel({ secondsLeft }: ResendButtonState): string {
  return secondsLeft > 0 ? `Get a new code in ${minutesAndSeconds(secondsLeft * 1000)}` : 'Get a new code';
}

function StartOver({ onStartOver }: { onStartOver: () => void }): ReactNode {
  return (
    <button type="button" className="secondary" onClick={onStartOver}>
      Start again
    </button>
  );
}
