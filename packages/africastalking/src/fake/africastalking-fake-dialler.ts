import {
  FakeInboxLog,
  type FakeInboxDialInSession,
  type FakeInboxWebhook,
  type FakeInboxWebhookAttempt,
  type FakeOutbox,
} from '@verikit/provider-utils/fake';
import { readUssdAnswer, type UssdAnswerKind } from '../ussd-session.js';
import { newAtId } from './africastalking-fake-routes.js';

/** What the application answered to one request of a USSD session, as the handset would show it. */
export interface FakeUssdScreen {
  /** Africa's Talking's id of the session; pass it to `reply` to answer a `CON` screen. */
  readonly sessionId: string;
  /** `CON`: the session waits for the user's answer; `END`: it is over. */
  readonly kind: UssdAnswerKind;
  /** The text on the handset; empty when the application's answer was refused. */
  readonly screen: string;
  /**
   * `answered` when the application answered `CON …` or `END …`; otherwise why Africa's Talking would end the
   * session: `http-error` (a non-200 status), `malformed` (a body that begins with neither `CON` nor `END`, whatever
   * its content type), `unreachable`.
   */
  readonly outcome: 'answered' | 'http-error' | 'malformed' | 'unreachable';
  /** The HTTP status the application answered, when it answered. */
  readonly status?: number;
}

/** One dial, as a handset on a mobile network would make it. */
export interface FakeDial {
  /** The number dialling, in E.164: what the network reports as `phoneNumber`. */
  readonly phoneNumber: string;
  /**
   * What the user dialled: the service code (`*384*1234#`), or the service code with more after it
   * (`*384*1234*58#`), which arrives as the session's first `text` (`58`).
   */
  readonly code: string;
  /** The network's code sent as `networkCode`. Default the fake's. */
  readonly networkCode?: string;
}

interface Session {
  readonly phoneNumber: string;
  readonly networkCode: string;
  readonly callbackUrl: string;
  readonly inputs: string[];
  readonly expiresAt: number;
  /** The session as the inbox page shows it, updated in place. */
  readonly shown: ShownSession;
}

/** A session as the inbox shows it. */
type ShownSession = { -readonly [Key in keyof FakeInboxDialInSession]: FakeInboxDialInSession[Key] };

/** A callback (a USSD session request, a delivery report) as the inbox shows it, updated in place. */
export interface LoggedCallback {
  readonly id: string;
  readonly url?: string;
  readonly payload: Readonly<Record<string, unknown>>;
  readonly attempts: FakeInboxWebhookAttempt[];
  outcome: FakeInboxWebhook['outcome'];
}

/** How much of an application's answer the inbox shows: a USSD screen is at most 182 characters. */
const answerShown = 200;

/**
 * Posts one callback (form-encoded, as Africa's Talking does), once (a session request cannot be retried, the
 * phone is waiting; Africa's Talking's pages say nothing of retrying a report), and logs it with its answer for the inbox. Resolves with the response and
 * its text, or undefined when the application did not answer.
 */
export async function postCallback(
  log: FakeInboxLog<LoggedCallback>,
  id: string,
  url: string,
  fields: Readonly<Record<string, string>>,
  readAnswer: (response: Response, text: string) => boolean,
): Promise<{ response: Response; text: string } | undefined> {
  const logged = log.add({ id, url, payload: fields, attempts: [], outcome: 'sending' });
  const at = Date.now();
  const settle = (attempt: Omit<FakeInboxWebhookAttempt, 'attempt' | 'at'>, delivered: boolean) => {
    logged.attempts.push({ attempt: 1, at, ...attempt });
    logged.outcome = delivered ? 'delivered' : 'failed';
    log.changed();
  };
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
      redirect: 'manual',
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    const answer = text.length > answerShown ? `${text.slice(0, answerShown)}…` : text;
    settle({ status: response.status, ...(answer === '' ? {} : { answer }) }, readAnswer(response, text));
    return { response, text };
  } catch (cause) {
    settle({ error: cause instanceof Error && cause.name === 'TimeoutError' ? 'timeout' : 'network error' }, false);
    return undefined;
  }
}
/** How long the fake keeps a session open between answers (networks close idle sessions within minutes). */
const sessionLifetimeMs = 3 * 60_000;

/** Plays the mobile network and Africa's Talking: posts USSD session requests to the application's callback. */
export class FakeUssdDialler {
  readonly #sessions = new Map<string, Session>();
  readonly #serviceCode: string;
  readonly #networkCode: string;
  readonly #callbackUrl: () => string | undefined;
  readonly #outbox: FakeOutbox;
  readonly #callbacks: FakeInboxLog<LoggedCallback>;
  readonly #shown: FakeInboxLog<ShownSession>;

  constructor(
    serviceCode: string,
    networkCode: string,
    callbackUrl: () => string | undefined,
    outbox: FakeOutbox,
    inbox: { readonly callbacks: FakeInboxLog<LoggedCallback>; readonly onChange: () => void },
  ) {
    this.#serviceCode = serviceCode;
    this.#networkCode = networkCode;
    this.#callbackUrl = callbackUrl;
    this.#outbox = outbox;
    this.#callbacks = inbox.callbacks;
    this.#shown = new FakeInboxLog({ limit: 100, onChange: inbox.onChange });
  }

  /** The sessions dialled, newest first, for the inbox page; a session past its lifetime shows as expired. */
  get sessions(): readonly FakeInboxDialInSession[] {
    const now = Date.now();
    return this.#shown.entries.map((shown) =>
      shown.state === 'open' && (this.#sessions.get(shown.sessionId)?.expiresAt ?? 0) < now
        ? { ...shown, state: 'expired' }
        : shown,
    );
  }

  /** A session as the inbox page shows it. */
  session(sessionId: string): FakeInboxDialInSession | undefined {
    return this.sessions.find((shown) => shown.sessionId === sessionId);
  }

  /** Dials: opens a session and posts its first request (`text` empty, or what followed the service code). */
  async dial(dial: FakeDial): Promise<FakeUssdScreen> {
    if (!/^\+[1-9]\d{6,14}$/.test(dial.phoneNumber)) throw new TypeError('phoneNumber must be an E.164 number');
    const stem = this.#serviceCode.slice(0, -1);
    let first: string;
    if (dial.code === this.#serviceCode) first = '';
    else if (dial.code.startsWith(`${stem}*`) && dial.code.endsWith('#')) first = dial.code.slice(stem.length + 1, -1);
    else throw new TypeError(`code must be ${this.#serviceCode}, or it with more digits before the #`);
    if (!/^[0-9*]{0,160}$/.test(first)) throw new TypeError('code must be digits and * only');
    const callbackUrl = this.#callbackUrl();
    if (callbackUrl === undefined) throw new TypeError('the fake has no callbackUrl to post USSD sessions to');
    const sessionId = newAtId('ATUid');
    const inputs = first === '' ? [] : [first];
    const session: Session = {
      phoneNumber: dial.phoneNumber,
      networkCode: dial.networkCode ?? this.#networkCode,
      callbackUrl,
      inputs,
      expiresAt: Date.now() + sessionLifetimeMs,
      shown: this.#shown.add({
        sessionId,
        phoneNumber: dial.phoneNumber,
        code: dial.code,
        inputs,
        screen: '',
        state: 'open',
        at: Date.now(),
      }),
    };
    this.#sessions.set(sessionId, session);
    return this.#post(sessionId, session);
  }

  /** Answers a `CON` screen of an open session: the text grows by `*` and the answer. */
  async reply(sessionId: string, input: string): Promise<FakeUssdScreen> {
    const session = this.#sessions.get(sessionId);
    if (session === undefined || Date.now() > session.expiresAt) {
      this.#sessions.delete(sessionId);
      throw new TypeError('no open USSD session with that id');
    }
    // A handset sends what the user typed, up to a USSD message (182 characters): symbols and accents too.
    if (typeof input !== 'string' || input.length === 0 || input.length > 182 || /\p{Cc}/u.test(input))
      throw new TypeError('input must be 1 to 182 characters, no control characters');
    session.inputs.push(input);
    return this.#post(sessionId, session);
  }

  /** Forgets every open session, and the sessions the inbox shows. */
  clear(): void {
    this.#sessions.clear();
    this.#shown.clear();
  }

  async #post(sessionId: string, session: Session): Promise<FakeUssdScreen> {
    const fields = {
      sessionId,
      serviceCode: this.#serviceCode,
      phoneNumber: session.phoneNumber,
      networkCode: session.networkCode,
      text: session.inputs.join('*'),
    };
    const show = (state: ShownSession['state'], screen: string) => {
      session.shown.state = state;
      session.shown.screen = screen;
      this.#shown.changed();
    };
    const ended = (outcome: Exclude<FakeUssdScreen['outcome'], 'answered'>, status?: number): FakeUssdScreen => {
      this.#sessions.delete(sessionId);
      show(outcome, '');
      return { sessionId, kind: 'END', screen: '', outcome, ...(status === undefined ? {} : { status }) };
    };
    // HTTP 200 and a body beginning CON or END: anything else ends the session. The content type is not read:
    // Africa's Talking's own samples answer with a framework's default for a string (text/html in Express and
    // Flask), and the session goes on there.
    const read = (response: Response, text: string) => (response.status === 200 ? readUssdAnswer(text) : undefined);
    const answered = await postCallback(
      this.#callbacks,
      sessionId,
      session.callbackUrl,
      fields,
      (response, text) => read(response, text) !== undefined,
    );
    if (answered === undefined) return ended('unreachable');
    const { response, text } = answered;
    if (response.status !== 200) return ended('http-error', response.status);
    const answer = read(response, text);
    if (answer === undefined) return ended('malformed', response.status);
    this.#outbox.push({ channel: 'ussd', to: session.phoneNumber, text: answer.screen });
    if (answer.kind === 'END') this.#sessions.delete(sessionId);
    show(answer.kind === 'END' ? 'ended' : 'open', answer.screen);
    return { sessionId, kind: answer.kind, screen: answer.screen, outcome: 'answered', status: response.status };
  }
}
