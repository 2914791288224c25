import { Fragment, useEffect, useRef, useState, type ReactNode } from 'react';
import type { FlowClientError, FlowView } from '@verikit/client';
import {
  ResendButton,
  UssdInstructions,
  useCountdown,
  useFlow,
  useMessage,
  type ResendButtonState,
  type UseFlowResult,
} from '@verikit/react';
import { attemptsLeftText, CodeEntry, codeSentText } from './code-entry.js';
import { errorId } from './messages.js';
import { minutesAndSeconds, StepHeading, useAnnounce, useOnline } from '@verikit/example-page-parts';
import { VerifiedPanel, type VerifiedPanelProps } from './verified-panel.js';

/** Props of {@link VerifyFlow}. */
export interface VerifyFlowProps {
  /** The flow started, as `useStartFlow` returned it. */
  started: FlowView;
  /** Once the flow is verified: the title, the button that moves on, and what to do with the flow's proof. */
  verified: Omit<VerifiedPanelProps, 'flowId'>;
  /** Back to the form, for a flow that can no longer verify (locked, cancelled, gone) or to use another number. */
  onStartOver: () => void;
}

type Message = ReturnType<typeof useMessage>;

/**
 * Whether the flow cannot go on although its last view said it could: the server no longer has it
 * (`flow_not_found`, after a restart or once it expired from the store) or refuses it (`forbidden`).
 * The page then shows that it ended, never the old screen as if it were live.
 */
function hasEnded(flow: UseFlowResult, view: FlowView): boolean {
  const gone = (code: string | undefined) => code === 'flow_not_found' || code === 'forbidden';
  if (gone(flow.sendError?.code)) return true;
  return !view.done && flow.connection === 'closed' && gone(flow.error?.code);
}

/**
 * One verification, live: renders whatever state the flow is in (docs/ui.md, "What to render for
 * each status") and offers only the actions the server allows. The view updates by itself: a
 * USSD result arriving by webhook shows here without a reload. Each new screen takes focus (its
 * heading, or the first digit), and its status is spoken once in the page's live region.
 */
export function VerifyFlow({ started, verified, onStartOver }: VerifyFlowProps): ReactNode {
  const message = useMessage();
  const flow = useFlow(started.id, { initialView: started });
  const view = flow.view ?? started;
  const status = hasEnded(flow, view) ? 'ended' : view.status;
  const expiresIn = useCountdown(flow.localExpiresAt);
  useAnnouncements(flow, view, status, expiresIn, message);

  const timeLeft =
    expiresIn === undefined || expiresIn <= 0 ? null : (
      <p className="muted">{message('flow.expiresIn', { time: minutesAndSeconds(expiresIn) })}</p>
    );
  const canCancel = status !== 'ended' && status !== 'verified' && view.allowed.includes('cancel');
  const online = useOnline();
  const sendError = useSendErrorUntilOnline(flow.sendError, online);

  return (
    <section className="flow" data-status={status}>
      {/* A new screen is a new element: its heading takes focus when it appears. The code screen stays while checking. */}
      <Fragment key={status === 'checking' ? 'awaiting-code' : status}>{body()}</Fragment>
      {sendError === undefined || status === 'ended' ? null : (
        <p role="alert" className="error">
          {message(errorId(sendError))}
        </p>
      )}
      {online ? null : <p className="notice">{message('flow.offline')}</p>}
      {flow.error !== undefined && flow.connection === 'reconnecting' && online ? (
        <p className="muted">{message('flow.reconnecting')}</p>
      ) : null}
      {canCancel ? (
        <button type="button" className="link" onClick={() => void flow.cancel().then(onStartOver)}>
          {message('flow.cancel')}
        </button>
      ) : null}
    </section>
  );

  function body(): ReactNode {
    const startOver = <StartOver onStartOver={onStartOver} message={message} />;
    // A new code is possible (now or after the countdown) only while the flow has sends left.
    const again = (event: 'resend' | 'restart') =>
      view.allowed.includes(event) || flow.localResendAvailableAt !== undefined ? (
        <ResendButton flow={flow} event={event} className="secondary">
          {(state) => newCodeLabel(message, state)}
        </ResendButton>
      ) : (
        startOver
      );
    switch (status) {
      case 'ended':
        return (
          <>
            <StepHeading>{message('flow.ended.title')}</StepHeading>
            <p>{message('flow.ended.text')}</p>
            {startOver}
          </>
        );
      case 'initiating':
        return <p>{message('start.preparing')}</p>;
      case 'sending':
        return <p>{message('flow.sendingTo', { phone: view.phoneNumber ?? message('code.yourPhone') })}</p>;
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
            <StepHeading>{message('flow.dial.title')}</StepHeading>
            <UssdInstructions className="ussd" ussdCode={view.ussdCode} otp={view.otp} />
            <p className="waiting">{message('flow.dial.waiting')}</p>
            {timeLeft}
          </>
        );
      case 'send-failed':
        // A send whose outcome is unknown accepts no code (the provider's answer, which a check needs, never came):
        // the page says so plainly. Should the answer come late, the flow moves to awaiting-code, with the field.
        return (
          <>
            <StepHeading>
              {message(view.error?.code === 'outcome_unknown' ? 'flow.sendUnknown.title' : 'flow.sendFailed.title')}
            </StepHeading>
            <p>
              {view.error?.code === 'outcome_unknown'
                ? message('flow.sendUnknown.text')
                : message(view.error === undefined ? 'flow.tryAgain' : errorId(view.error))}
            </p>
            {view.allowed.includes('resend') || flow.localResendAvailableAt !== undefined ? (
              <ResendButton flow={flow} className="secondary" />
            ) : (
              startOver
            )}
          </>
        );
      case 'failed':
        return (
          <>
            <StepHeading>{message(failedTitle(view))}</StepHeading>
            <p>{message(view.error === undefined ? 'flow.tryAgain' : errorId(view.error))}</p>
            {again('restart')}
          </>
        );
      case 'expired':
        return (
          <>
            <StepHeading>{message('flow.expired.title')}</StepHeading>
            {view.done ? startOver : again(view.kind === 'ussd' ? 'restart' : 'resend')}
          </>
        );
      case 'locked':
        return (
          <>
            <StepHeading>{message('flow.locked.title')}</StepHeading>
            <p>{message('flow.locked.text')}</p>
            {startOver}
          </>
        );
      case 'cancelled':
        return (
          <>
            <StepHeading>{message('flow.cancelled.title')}</StepHeading>
            {startOver}
          </>
        );
      case 'verified':
        return <VerifiedPanel flowId={started.id} {...verified} />;
      default:
        return <p>{message('flow.wait')}</p>;
    }
  }
}

/**
 * What the live region says: each status once (a wrong code with the attempts left, "Checking…" while a
 * code is checked), and of the countdowns only two moments: the code about to expire, a new code possible.
 */
function useAnnouncements(
  flow: UseFlowResult,
  view: FlowView,
  status: string,
  expiresIn: number | undefined,
  message: Message,
): void {
  const announce = useAnnounce();
  const spoken = flow.isChecking
    ? { key: 'checking', text: message('code.checking') }
    : { key: `${status}:${view.version}`, text: statusText(view, status, message) };
  // The last status spoken: a check that got no answer (offline) returns to the same status and version, which
  // is not news ("We sent a 6-digit code" again would be wrong); the failure itself is the alert.
  const lastStatus = useRef<string | undefined>(undefined);
  // biome-ignore lint/correctness/useExhaustiveDependencies: spoken once per status (and version), not on every render.
  useEffect(() => {
    if (spoken.key !== 'checking' && spoken.key === lastStatus.current) return;
    if (spoken.key !== 'checking') lastStatus.current = spoken.key;
    if (spoken.text !== undefined) announce(spoken.text);
  }, [spoken.key]);

  const expiringSoon = expiresIn !== undefined && expiresIn > 0 && expiresIn <= 60_000;
  const resendIn = useCountdown(flow.localResendAvailableAt);
  const canAskAgain =
    flow.localResendAvailableAt !== undefined &&
    resendIn === 0 &&
    (view.allowed.includes('resend') || view.allowed.includes('restart'));
  useThreshold(expiringSoon, () => announce(message('flow.expiresSoon')));
  useThreshold(canAskAgain, () => announce(message('flow.resendReady')));
}

/** Calls `onCross` when `reached` turns true (not when it starts true). */
function useThreshold(reached: boolean, onCross: () => void): void {
  const before = useRef(reached);
  useEffect(() => {
    if (reached && !before.current) onCross();
    before.current = reached;
  });
}

/** The words for a status as it appears. */
function statusText(view: FlowView, status: string, message: Message): string | undefined {
  switch (status) {
    case 'awaiting-code':
      if (view.error?.code === 'code_invalid') return attemptsLeftText(message, view.attemptsLeft ?? 0);
      return codeSentText(view, message);
    case 'checking':
      return message('code.checking');
    case 'awaiting-dial':
      return message('flow.dial.title');
    case 'send-failed':
      return message(view.error?.code === 'outcome_unknown' ? 'flow.sendUnknown.title' : 'flow.sendFailed.title');
    case 'failed':
      return message(failedTitle(view));
    case 'expired':
      return message('flow.expired.title');
    case 'locked':
      return `${message('flow.locked.title')}. ${message('flow.locked.text')}`;
    case 'verified':
      return message('flow.verified');
    case 'ended':
      return message('flow.ended.title');
    case 'cancelled':
      return message('flow.cancelled.title');
    default:
      return undefined;
  }
}

/** The heading of a failed flow: a dial not confirmed, a code another verification of the number replaced, or a failure. */
function failedTitle(view: FlowView): string {
  if (view.error?.code === 'outcome_unknown') return 'flow.dialUnknown.title';
  return view.error?.code === 'superseded' ? 'flow.superseded.title' : 'flow.failed.title';
}

/** The label of the button that asks for a new code (USSD restart, or resend after expiry), with its countdown. */
function newCodeLabel(message: Message, { secondsLeft }: ResendButtonState): string {
  return secondsLeft > 0
    ? message('flow.newCodeIn', { time: minutesAndSeconds(secondsLeft * 1000) })
    : message('flow.newCode');
}

function StartOver({ onStartOver, message }: { onStartOver: () => void; message: Message }): ReactNode {
  return (
    <button type="button" className="secondary" onClick={onStartOver}>
      {message('flow.startAgain')}
    </button>
  );
}

/**
 * The error of the last event sent, until the connection comes back: a network error is about the connection, so
 * the browser's `online` event clears it (what the user does next is sent again, on a connection that works).
 */
function useSendErrorUntilOnline(error: FlowClientError | undefined, online: boolean): FlowClientError | undefined {
  const [cleared, setCleared] = useState<FlowClientError | undefined>(undefined);
  const wasOnline = useRef(online);
  useEffect(() => {
    if (online && !wasOnline.current && error?.code === 'network_error') setCleared(error);
    wasOnline.current = online;
  }, [online, error]);
  return error === cleared ? undefined : error;
}
