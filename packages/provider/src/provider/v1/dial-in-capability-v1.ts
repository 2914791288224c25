import type { RawWebhookV1 } from './webhooks-capability-v1.js';

/** One request of a USSD session as the carrier sent it, read by {@link DialInCapabilityV1.parseSession}. */
export interface DialInSessionV1 {
  /** The carrier's id of the session, the same on every request of one session: the delivery id of the dial. */
  readonly sessionId: string;
  /** The number that dialled, in E.164, as the mobile network reported it. */
  readonly phoneNumber: string;
  /** What the user typed after the service code (`58` for `*384*1234*58#`); empty when nothing. */
  readonly text: string;
}

/** The text an answer to a USSD session request carries, and its media type. */
export interface DialInAnswerV1 {
  /** The answer's body as the carrier reads it: `CON …` or `END …` for Africa's Talking. */
  readonly body: string;
  /** The answer's `content-type` header, e.g. `text/plain; charset=utf-8`. */
  readonly contentType: string;
}

/**
 * Dial-in verification: the user dials the provider's USSD service code followed by a one-time
 * reference, and the carrier tells the application which number dialled, in a request the application
 * answers in the same exchange. Nothing is sent to the user.
 */
export interface DialInCapabilityV1 {
  /** The USSD service code registered for the application, e.g. `*384*1234#`. */
  readonly serviceCode: string;
  /**
   * Reads one USSD session request. Throws an `InvalidInputError` naming each malformed field. The
   * caller checks where the request came from: a session request is not signed by every carrier.
   */
  parseSession(request: RawWebhookV1): DialInSessionV1;
  /** The answer to a session request: `CON` keeps the session open, `END` closes it with `screen` shown. */
  answer(kind: 'CON' | 'END', screen: string): DialInAnswerV1;
}
