import type { FakeMessage, FakeOutbox } from '../fake-outbox.js';

/** A USSD session as the inbox shows it: what the user must dial, and whether they did. */
export interface FakeInboxUssdSession {
  /** The number the session is for, in E.164. */
  readonly phoneNumber: string;
  /** What the user dials, e.g. `*384*1234#`. */
  readonly ussdCode: string;
  /** The OTP the user enters after dialling. */
  readonly otp: string;
  /** `pending` until dialled. */
  readonly status: 'pending' | 'success' | 'failed';
  /** When the session lapses (ms since the epoch). */
  readonly expiresAt: number;
}

/** One attempt at delivering a webhook. */
export interface FakeInboxWebhookAttempt {
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** When it was made (ms since the epoch). */
  readonly at: number;
  /** The receiver's HTTP status, when it answered. */
  readonly status?: number;
  /** `timeout` or `network error` when it did not answer. */
  readonly error?: string;
  /** When another attempt follows: the wait before it, in ms. */
  readonly retryInMs?: number;
  /** What the receiver answered, when the fake reads it (a USSD callback's `CON …` or `END …`). */
  readonly answer?: string;
}

/** A webhook a fake sent (or could not send), with every attempt so far. */
export interface FakeInboxWebhook {
  /** The webhook's id, the same for every attempt. */
  readonly id: string;
  /** Where it goes; undefined when the fake has no webhook URL. */
  readonly url?: string;
  /** The event sent. */
  readonly payload: Readonly<Record<string, unknown>>;
  /** Every attempt so far, oldest first. */
  readonly attempts: readonly FakeInboxWebhookAttempt[];
  /** `sending` while attempts go on; `not-sent` when the fake has nowhere to send it. */
  readonly outcome: 'sending' | 'delivered' | 'failed' | 'not-sent';
}

/** A USSD session a phone opened by dialling the application's service code, as its screen shows it. */
export interface FakeInboxDialInSession {
  /** The session's id, to reply to it. */
  readonly sessionId: string;
  /** The number that dialled, in E.164. */
  readonly phoneNumber: string;
  /** What it dialled, e.g. `*384*1234*583921#`. */
  readonly code: string;
  /** What the user typed so far, in order: the text after the service code, then each reply. */
  readonly inputs: readonly string[];
  /** The last screen the application answered; empty when its answer was refused. */
  readonly screen: string;
  /**
   * `open` while the application waits for a reply (it answered `CON`), `ended` when it answered `END`;
   * otherwise why the network ended the session: `http-error`, `malformed` (neither `CON` nor `END`),
   * `unreachable`, `expired`.
   */
  readonly state: 'open' | 'ended' | 'http-error' | 'malformed' | 'unreachable' | 'expired';
  /** When it was dialled (ms since the epoch). */
  readonly at: number;
}

/**
 * Dial-in USSD (Africa's Talking's): the phone dials the application's service code and the fake posts the
 * session to the application's callback. The page offers a dial form and a reply form per open session.
 */
export interface FakeInboxDialIn {
  /** The service code the fake serves, e.g. `*384*1234#`: what the dial form starts with. */
  readonly serviceCode: string;
  /** Where sessions are posted; undefined while the fake has none (the page says how to set one). */
  readonly callbackUrl: () => string | undefined;
  /** The sessions dialled, newest first. */
  readonly sessions: () => readonly FakeInboxDialInSession[];
  /** Dials `code` from `phoneNumber`; resolves with the session as it stands, rejects with a TypeError to show. */
  readonly dial: (phoneNumber: string, code: string) => Promise<FakeInboxDialInSession>;
  /** Replies `input` to an open session; resolves with the session as it stands, rejects with a TypeError to show. */
  readonly reply: (sessionId: string, input: string) => Promise<FakeInboxDialInSession>;
}

/**
 * What a fake shows on its inbox page. Every fake has an outbox; a fake that holds USSD sessions or sends
 * webhooks (the gateway's), or takes dial-in USSD and sends callbacks (Africa's Talking's), adds them, and
 * `onChange` for what its outbox does not tell.
 */
export interface FakeInboxSource {
  /** Which fake this is, for the page's title: `gateway`, `termii`, `twilio`, `Africa's Talking`. */
  readonly name: string;
  /** The messages it delivered. */
  readonly outbox: FakeOutbox<FakeMessage>;
  /** The USSD sessions it holds, newest first. */
  readonly ussdSessions?: () => readonly FakeInboxUssdSession[];
  /**
   * Acts as the user who dials the session's code: `success` enters the session's OTP, `failed` a wrong one.
   * Returns false when the number has no pending session.
   */
  readonly dialUssd?: (phoneNumber: string, outcome: 'success' | 'failed') => boolean;
  /** Dial-in USSD: the phone dials, the fake posts the session to the application. */
  readonly dialIn?: FakeInboxDialIn;
  /** The webhooks (or callbacks) it sent, newest first. */
  readonly webhooks?: () => readonly FakeInboxWebhook[];
  /** The webhooks panel's heading. Default `Webhooks`. */
  readonly webhooksTitle?: string;
  /** Hears every change the outbox does not tell (sessions, webhook attempts); returns the unsubscribe function. */
  readonly onChange?: (listener: () => void) => () => void;
}
