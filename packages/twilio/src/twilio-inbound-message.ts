import { InvalidInputError, type InboundMessageEventV1, type RawWebhookV1 } from '@verikit/provider';
import { twilioFormVerifier } from './twilio-signature.js';

/** A message SID (`SM…`, `MM…`): two letters and 32 hexadecimal characters. */
const messageSidPattern = /^(?:SM|MM)[0-9a-fA-F]{32}$/;

/** An E.164 number as Twilio writes `From` and `To` (after `whatsapp:`). */
const e164Pattern = /^\+[1-9]\d{6,14}$/;

/** One address of an incoming message: `+1…` for SMS, `whatsapp:+1…` for WhatsApp. */
function addressOf(form: URLSearchParams, field: 'From' | 'To'): { channel: 'sms' | 'whatsapp'; number: string } {
  const value = form.get(field) ?? '';
  const whatsapp = value.startsWith('whatsapp:');
  const number = whatsapp ? value.slice('whatsapp:'.length) : value;
  if (!e164Pattern.test(number))
    throw new InvalidInputError([{ field, message: 'must be an E.164 number, or whatsapp: and one' }]);
  return { channel: whatsapp ? 'whatsapp' : 'sms', number };
}

/** An incoming message's form fields, read: its SID, its channel, who sent it, to which number, its text. */
function readIncoming(body: string): { sid: string; event: InboundMessageEventV1 } {
  if (typeof body !== 'string' || body.length > 16_384)
    throw new InvalidInputError([{ field: 'body', message: 'must be a form body of at most 16384 characters' }]);
  const form = new URLSearchParams(body);
  const sid = form.get('MessageSid') ?? '';
  if (!messageSidPattern.test(sid))
    throw new InvalidInputError([
      { field: 'MessageSid', message: 'must be a message SID (a Twilio incoming message)' },
    ]);
  const from = addressOf(form, 'From');
  const to = addressOf(form, 'To');
  if (from.channel !== to.channel)
    throw new InvalidInputError([
      { field: 'To', message: 'must be on the channel of From (both whatsapp: or neither)' },
    ]);
  const text = form.get('Body') ?? '';
  if (text.length > 1600) throw new InvalidInputError([{ field: 'Body', message: 'must be at most 1600 characters' }]);
  return { sid, event: { type: 'inbound-message', channel: from.channel, from: from.number, to: to.number, text } };
}

/**
 * Reads Twilio's request to a number's incoming message webhook (a form POST: `MessageSid`, `From`, `To`, `Body`, …;
 * twilio.com/docs/messaging/guides/webhook-request, read 2026-11-28) into an inbound message: an SMS when the
 * addresses are numbers, a WhatsApp message when they are `whatsapp:` addresses (the prefix removed). Fields Twilio
 * adds (`ProfileName`, `WaId`, media, …) are ignored. A body that is not such a request is an `InvalidInputError`
 * naming the field, never quoting it. Verify the signature first (`createTwilioInboundMessageVerifier`).
 */
export function parseTwilioInboundMessage(webhook: RawWebhookV1): InboundMessageEventV1 {
  return readIncoming(webhook?.body).event;
}

/** Options of {@link createTwilioInboundMessageVerifier}. */
export interface TwilioInboundMessageVerifierOptions {
  /**
   * The URL configured at Twilio for "A message comes in" on the number (and the WhatsApp sender), exactly: Twilio
   * signs it. Default: `TWILIO_INBOUND_URL`.
   */
  readonly url?: string;
  /** The auth token of the account that receives. Default: `TWILIO_AUTH_TOKEN`, read at each call. */
  readonly authToken?: string;
  /**
   * The secret of the account's webhook SharedKey, for requests Twilio signs with it (HMAC-SHA256, named by
   * `X-Twilio-Webhooks-Signature-Settings`). Default: `TWILIO_SHARED_KEY_SECRET`, read at each call; none: such
   * requests are refused.
   */
  readonly sharedKeySecret?: string;
}

/** A verified incoming message's delivery id. */
export interface TwilioVerifiedMessage {
  /** The `MessageSid`: one id per message, so a request Twilio sends again is a duplicate. */
  readonly id: string;
}

/** What `@verikit/http` takes as a webhook scheme of one's own: `verify` returns the delivery id, or throws. */
export interface TwilioInboundMessageVerifier {
  /** Returns the delivery id of an incoming message Twilio signed; throws for anything else. */
  verify(input: RawWebhookV1): TwilioVerifiedMessage;
}

/**
 * A webhook verifier for the messages users send to your Twilio number or WhatsApp sender (a plan's inbound steps), to
 * give `createWebhookHandler` as `scheme` beside `parse: parseTwilioInboundMessage`: it checks `X-Twilio-Signature`
 * over the configured incoming-message URL and the form body, by the auth token (HMAC-SHA1) or a SharedKey's secret
 * (`verifyTwilioWebhook`, the check that agrees with twilio-node), and refuses anything unsigned, forged, signed for
 * another URL or changed after signing. Its id is the `MessageSid`: a request Twilio sends again is a duplicate.
 * Twilio's request carries no timestamp: a replay is bounded by the engine's replay memory (24 h) and by the flow,
 * which forgets its reference once verified. Bad options throw an `InvalidInputError` naming the option.
 *
 * @example
 * createWebhookHandler({ verikit, scheme: createTwilioInboundMessageVerifier(), parse: parseTwilioInboundMessage });
 */
export function createTwilioInboundMessageVerifier(
  options: TwilioInboundMessageVerifierOptions = {},
): TwilioInboundMessageVerifier {
  return twilioFormVerifier(
    options,
    'TWILIO_INBOUND_URL',
    'the X-Twilio-Signature does not match the incoming message URL and body',
    (body) => readIncoming(body).sid,
  );
}
