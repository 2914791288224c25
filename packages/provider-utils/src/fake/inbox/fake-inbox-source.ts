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

/**
 * What a fake shows on its inbox page. Every fake has an outbox; a fake that holds USSD sessions or sends
 * webhooks (the gateway's) adds them, and `onChange` for what its outbox does not tell.
 */
export interface FakeInboxSource {
  /** Which fake this is, for the page's title: `gateway`, `termii`, `twilio`. */
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
  /** The webhooks it sent, newest first. */
  readonly webhooks?: () => readonly FakeInboxWebhook[];
  /** Hears every change the outbox does not tell (sessions, webhook attempts); returns the unsubscribe function. */
  readonly onChange?: (listener: () => void) => () => void;
}
