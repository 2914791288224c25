import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import type { FlowClientError, FlowView } from '@verikit/client';
import { minutesAndSeconds, StepHeading, useAnnounce, useOnline } from '@verikit/example-page-parts';
import {
  UssdInstructions,
  useCountdown,
  useFlow,
  useFlowClient,
  useMessage,
  useStartFlow,
  type UseFlowResult,
} from '@verikit/react';

type Message = ReturnType<typeof useMessage>;

/** What this tab last asked to confirm, so a reload shows that flow again instead of starting a new one. */
const draftKey = 'dial-in.flow';

interface Draft {
  readonly phoneNumber: string;
  /** The flow started for it, once there is one. */
  readonly flowId?: string;
}

function readDraft(): Draft | undefined {
  try {
    const draft = JSON.parse(sessionStorage.getItem(draftKey) ?? 'null') as Record<string, unknown> | null;
    if (typeof draft?.phoneNumber !== 'string') return undefined;
    return { phoneNumber: draft.phoneNumber, ...(typeof draft.flowId === 'string' ? { flowId: draft.flowId } : {}) };
  } catch {
    // No storage, or not ours: nothing to show again.
    return undefined;
  }
}

function writeDraft(draft: Draft | undefined): void {
  try {
    if (draft === undefined) sessionStorage.removeItem(draftKey);
    else sessionStorage.setItem(draftKey, JSON.stringify(draft));
  } catch {
    // Without storage a reload shows the form; a start for the same number still resumes the live flow.
  }
}

/**
 * The dial-in page: a number, then the code to dial (a `tel:` link on a phone) with the time left and Cancel, then
 * "Number confirmed" when the live view says `verified`, or "The code expired" with "Get a new code". Each new
 * screen moves focus to its heading; one polite live region speaks each status once; every word comes from a
 * message id (never the server's developer text). A reload asks the server how the flow this tab started stands:
 * still live, the same code is shown again (no new flow); ended, its ending is shown.
 */
export function DialInPage(): ReactNode {
  const message = useMessage();
  const client = useFlowClient();
  const { start, resume, view: started, isPending, error, reset } = useStartFlow();
  const flow = useFlow(started?.id, started === undefined ? undefined : { initialView: started });
  // A flow that had ended before a reload, as the server reads it (an ended flow is shown, not resumed).
  const [restored, setRestored] = useState<FlowView | undefined>(undefined);
  const view = flow.view ?? started ?? restored;
  const announce = useAnnounce();
  const online = useOnline();
  const [phoneNumber, setPhoneNumber] = useState('');
  const [returned, setReturned] = useState(false);
  const status = view === undefined ? 'form' : hasEnded(flow, view) ? 'ended' : view.status;

  // biome-ignore lint/correctness/useExhaustiveDependencies: the tab's title follows the language, once.
  useEffect(() => {
    document.title = message('dialIn.pageTitle');
  }, []);
  const statusText = view === undefined ? undefined : spokenStatus(status, message);
  // biome-ignore lint/correctness/useExhaustiveDependencies: spoken once per status, not on every render.
  useEffect(() => {
    if (statusText !== undefined) announce(statusText);
  }, [status]);
  const wasOnline = useRef(online);
  // biome-ignore lint/correctness/useExhaustiveDependencies: spoken when the connection changes, not on every render.
  useEffect(() => {
    if (wasOnline.current !== online) announce(message(online ? 'dialIn.online' : 'dialIn.offline'));
    wasOnline.current = online;
  }, [online]);

  // After a reload: the flow this tab started, read from the server. Ended, its ending is shown; still live, it is
  // resumed (the client kept its handle): the same code, no new flow.
  useEffect(() => {
    const draft = readDraft();
    if (draft === undefined) return;
    setPhoneNumber(draft.phoneNumber);
    void (async () => {
      const read = draft.flowId === undefined ? undefined : await client.get(draft.flowId).catch(() => undefined);
      if (read?.done === true) setRestored(read);
      else await resume({ kind: 'dial-in', phoneNumber: draft.phoneNumber });
    })();
  }, [client, resume]);
  // The flow started is remembered with its number, so that a reload can ask the server about it.
  // biome-ignore lint/correctness/useExhaustiveDependencies: written when a flow starts, with the number it started for.
  useEffect(() => {
    if (started !== undefined) writeDraft({ phoneNumber: phoneNumber.trim(), flowId: started.id });
  }, [started]);

  const begin = () => {
    writeDraft({ phoneNumber: phoneNumber.trim() });
    void start({ kind: 'dial-in', phoneNumber: phoneNumber.trim() });
  };
  const startAgain = () => {
    writeDraft(undefined);
    reset();
    setRestored(undefined);
    setReturned(true);
  };
  return (
    <main>
      <h1>{message('dialIn.title')}</h1>
      {online ? null : <p className="notice">{message('dialIn.offline')}</p>}
      <section className="flow" data-status={status} key={status}>
        {screen()}
      </section>
    </main>
  );

  function screen(): ReactNode {
    switch (status) {
      case 'form':
        return (
          <PhoneForm
            phoneNumber={phoneNumber}
            onChange={setPhoneNumber}
            onSubmit={begin}
            isPending={isPending}
            error={error}
            focusHeading={returned}
          />
        );
      case 'awaiting-dial':
        return (
          <AwaitingDial
            flow={flow}
            view={view!}
            onCancel={() => {
              // Back to the form at once; the flow is cancelled on the server in the background.
              void flow.cancel();
              startAgain();
            }}
          />
        );
      case 'verified':
        return (
          <>
            <StepHeading className="verified">✓ {message('dialIn.verified.title')}</StepHeading>
            <p>{message('dialIn.verified.text', { phone: view?.phoneNumber ?? phoneNumber.trim() })}</p>
          </>
        );
      case 'expired':
        // The way forward: a new code for the same number at once, or back to the form for another number.
        return (
          <>
            <StepHeading>{message('dialIn.expired.title')}</StepHeading>
            <p>{message('dialIn.expired.text')}</p>
            <button
              type="button"
              className="primary"
              aria-disabled={isPending || undefined}
              onClick={() => {
                if (!isPending) begin();
              }}
            >
              {isPending ? message('dialIn.starting') : message('dialIn.expired.again')}
            </button>
            {error === undefined ? null : (
              <p role="alert" className="error">
                {message(startErrorId(error))}
              </p>
            )}
            <button type="button" className="link" onClick={startAgain}>
              {message('dialIn.otherNumber')}
            </button>
          </>
        );
      case 'ended':
      case 'cancelled':
        return (
          <>
            <StepHeading>{message('dialIn.ended.title')}</StepHeading>
            <p>{message('dialIn.ended.text')}</p>
            <button type="button" className="secondary" onClick={startAgain}>
              {message('dialIn.startAgain')}
            </button>
          </>
        );
      default:
        return <p>{message('dialIn.starting')}</p>;
    }
  }
}

/** The message id of the refusal of a start: the field's own (a refused number), else the error code's. */
function startErrorId(error: FlowClientError): string {
  const issue = error.issues?.find((candidate) => candidate.field === 'phoneNumber');
  if (issue?.messageId !== undefined) return issue.messageId;
  if (issue !== undefined || error.field === 'phoneNumber') return 'verikit.error.phone_number';
  return error.messageId?.startsWith('verikit.error.') === true ? error.messageId : `verikit.error.${error.code}`;
}

function PhoneForm(props: {
  phoneNumber: string;
  onChange: (value: string) => void;
  onSubmit: () => void;
  isPending: boolean;
  error: FlowClientError | undefined;
  focusHeading: boolean;
}): ReactNode {
  const message = useMessage();
  const { error } = props;
  const refused = error !== undefined;
  // A newer server's id this page does not know reads as the field's own message.
  const text = error === undefined ? '' : message(startErrorId(error));
  const shown = text === message('verikit.error.unknown') ? message('verikit.error.phone_number') : text;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!props.isPending) props.onSubmit();
  };
  return (
    <form onSubmit={submit} noValidate>
      <StepHeading focus={props.focusHeading}>{message('dialIn.form.title')}</StepHeading>
      <p className="muted">{message('dialIn.help')}</p>
      <label htmlFor="phone-number">{message('dialIn.label')}</label>
      <input
        id="phone-number"
        type="tel"
        autoComplete="tel"
        placeholder="+2348012345678"
        value={props.phoneNumber}
        onChange={(event) => props.onChange(event.target.value)}
        aria-invalid={refused || undefined}
        aria-describedby={refused ? 'phone-error' : undefined}
      />
      {refused ? (
        <p id="phone-error" role="alert" className="error">
          {shown}
        </p>
      ) : null}
      <button type="submit" className="primary" aria-disabled={props.isPending || undefined}>
        {props.isPending ? message('dialIn.starting') : message('dialIn.submit')}
      </button>
    </form>
  );
}

function AwaitingDial({ flow, view, onCancel }: { flow: UseFlowResult; view: FlowView; onCancel: () => void }) {
  const message = useMessage();
  const expiresIn = useCountdown(flow.localExpiresAt);
  return (
    <>
      <StepHeading>{message('dialIn.dial.title')}</StepHeading>
      <UssdInstructions className="ussd" ussdCode={view.ussdCode} id="dial" />
      <p className="waiting">{message('dialIn.dial.waiting')}</p>
      {expiresIn === undefined || expiresIn <= 0 ? null : (
        <p className="muted">{message('dialIn.timeLeft', { time: minutesAndSeconds(expiresIn) })}</p>
      )}
      {view.allowed.includes('cancel') ? (
        <button type="button" className="link" onClick={onCancel}>
          {message('dialIn.cancel')}
        </button>
      ) : null}
    </>
  );
}

/** What the live region says for a status as it appears (the form itself says nothing). */
function spokenStatus(status: string, message: Message): string | undefined {
  switch (status) {
    case 'awaiting-dial':
      return message('dialIn.dial.title');
    case 'verified':
      return message('dialIn.verified.title');
    case 'expired':
      return message('dialIn.expired.title');
    case 'ended':
    case 'cancelled':
      return message('dialIn.ended.title');
    default:
      return undefined;
  }
}

/** Whether the flow can no longer go on: the server no longer has it, or refuses it. */
function hasEnded(flow: UseFlowResult, view: FlowView): boolean {
  const gone = (code: string | undefined) => code === 'flow_not_found' || code === 'forbidden';
  return !view.done && flow.connection === 'closed' && gone(flow.error?.code);
}
