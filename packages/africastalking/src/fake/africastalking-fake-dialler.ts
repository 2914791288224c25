import type { FakeOutbox } from '@verikit/provider-utils/fake';
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
   * session: `http-error` (a non-200 status), `malformed` (not `CON`/`END`, or not text/plain), `unreachable`.
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

  constructor(serviceCode: string, networkCode: string, callbackUrl: () => string | undefined, outbox: FakeOutbox) {
    this.#serviceCode = serviceCode;
    this.#networkCode = networkCode;
    this.#callbackUrl = callbackUrl;
    this.#outbox = outbox;
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
    const session: Session = {
      phoneNumber: dial.phoneNumber,
      networkCode: dial.networkCode ?? this.#networkCode,
      callbackUrl,
      inputs: first === '' ? [] : [first],
      expiresAt: Date.now() + sessionLifetimeMs,
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
    if (!/^[0-9A-Za-z ]{1,160}$/.test(input)) throw new TypeError('input must be 1 to 160 letters or digits');
    session.inputs.push(input);
    return this.#post(sessionId, session);
  }

  /** Forgets every open session. */
  clear(): void {
    this.#sessions.clear();
  }

  async #post(sessionId: string, session: Session): Promise<FakeUssdScreen> {
    const body = new URLSearchParams({
      sessionId,
      serviceCode: this.#serviceCode,
      phoneNumber: session.phoneNumber,
      networkCode: session.networkCode,
      text: session.inputs.join('*'),
    }).toString();
    const ended = (outcome: FakeUssdScreen['outcome'], status?: number): FakeUssdScreen => {
      this.#sessions.delete(sessionId);
      return { sessionId, kind: 'END', screen: '', outcome, ...(status === undefined ? {} : { status }) };
    };
    let response: Response;
    try {
      response = await fetch(session.callbackUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(10_000),
      });
    } catch {
      return ended('unreachable');
    }
    const text = await response.text();
    if (response.status !== 200) return ended('http-error', response.status);
    const answer = (response.headers.get('content-type') ?? '').startsWith('text/plain')
      ? readUssdAnswer(text)
      : undefined;
    if (answer === undefined) return ended('malformed', response.status);
    this.#outbox.push({ channel: 'ussd', to: session.phoneNumber, text: answer.screen });
    if (answer.kind === 'END') this.#sessions.delete(sessionId);
    return { sessionId, kind: answer.kind, screen: answer.screen, outcome: 'answered', status: response.status };
  }
}
