import { InvalidInputError, type ProviderEventV1, type RawWebhookV1 } from '@verikit/provider';
import { twilioFormVerifier } from './twilio-signature.js';

/** A message SID (`SM…`, `MM…`): two letters and 32 hexadecimal characters. */
const messageSidPattern = /^(?:SM|MM)[0-9a-fA-F]{32}$/;

/** The statuses a callback may carry (twilio.com/docs/messaging/api/message-resource#message-status-values). */
const knownStatuses = new Set([
  'accepted',
  'scheduled',
  'canceled',
  'queued',
  'sending',
  'sent',
  'failed',
  'delivered',
  'undelivered',
  'receiving',
  'received',
  'read',
  'partially_delivered',
]);

/** A status callback's form fields, read: the message, its status and Twilio's error code. */
function readCallback(body: string): { sid: string; status: string; errorCode: string | undefined } {
  if (typeof body !== 'string' || body.length > 16_384)
    throw new InvalidInputError([{ field: 'body', message: 'must be a form body of at most 16384 characters' }]);
  const form = new URLSearchParams(body);
  const sid = form.get('MessageSid') ?? '';
  if (!messageSidPattern.test(sid))
    throw new InvalidInputError([{ field: 'MessageSid', message: 'must be a message SID (a Twilio status callback)' }]);
  const status = form.get('MessageStatus') ?? form.get('SmsStatus') ?? '';
  if (!knownStatuses.has(status))
    throw new InvalidInputError([{ field: 'MessageStatus', message: 'must be a message status Twilio documents' }]);
  const errorCode = form.get('ErrorCode') ?? undefined;
  if (errorCode !== undefined && errorCode !== '' && !/^\d{1,6}$/.test(errorCode))
    throw new InvalidInputError([{ field: 'ErrorCode', message: 'must be a Twilio error code' }]);
  return { sid, status, errorCode: errorCode === '' ? undefined : errorCode };
}

/**
 * Reads one of Twilio's message status callbacks (a form POST to the `StatusCallback` URL of a send: `MessageSid`,
 * `MessageStatus`, `ErrorCode`, …; twilio.com/docs/messaging/guides/outbound-message-status-in-status-callbacks,
 * read 2026-11-24) into a delivery receipt for the message SID: `delivered` is `delivered`; `failed` and
 * `undelivered` are `undelivered`, with `twilio:<ErrorCode>` as the reason (`twilio:63016` outside WhatsApp's
 * 24-hour window, `twilio:30003` an unreachable handset). A status on the way (`queued`, `sent`, …) or after
 * delivery (`read`) is `null`: acknowledged and ignored. The callback carries no time of the change, so the receipt
 * has no `at`. A body that is not such a callback is an `InvalidInputError` naming the field, never quoting it.
 * Verify the signature first (`createTwilioStatusCallbackVerifier`).
 */
export function parseTwilioStatusCallback(webhook: RawWebhookV1): ProviderEventV1 | null {
  const { sid, status, errorCode } = readCallback(webhook?.body);
  if (status === 'delivered') return { type: 'delivery', messageId: sid, status: 'delivered' };
  if (status !== 'failed' && status !== 'undelivered') return null;
  return { type: 'delivery', messageId: sid, status: 'undelivered', reason: `twilio:${errorCode ?? status}` };
}

/** Options of {@link createTwilioStatusCallbackVerifier}. */
export interface TwilioStatusCallbackVerifierOptions {
  /** The `statusCallbackUrl` the provider sends, exactly: Twilio signs it. Default: `TWILIO_STATUS_CALLBACK_URL`. */
  readonly url?: string;
  /** The auth token of the account that sends. Default: `TWILIO_AUTH_TOKEN`, read at each call. */
  readonly authToken?: string;
  /**
   * The secret of the account's webhook SharedKey, for callbacks Twilio signs with it (HMAC-SHA256, named by
   * `X-Twilio-Webhooks-Signature-Settings`). Default: `TWILIO_SHARED_KEY_SECRET`, read at each call; none: such
   * callbacks are refused.
   */
  readonly sharedKeySecret?: string;
}

/** A verified status callback's delivery id. */
export interface TwilioVerifiedCallback {
  /** `<MessageSid>:<MessageStatus>`: one id per status of a message, so a callback sent again is a duplicate. */
  readonly id: string;
}

/** What `@verikit/http` takes as a webhook scheme of one's own: `verify` returns the delivery id, or throws. */
export interface TwilioStatusCallbackVerifier {
  /** Returns the delivery id of a callback Twilio signed; throws for anything else. */
  verify(input: RawWebhookV1): TwilioVerifiedCallback;
}

/**
 * A webhook verifier for Twilio's status callbacks, to give `createFlowHandler` as `webhooks.scheme`: it checks
 * `X-Twilio-Signature` over the configured status callback URL and the form body, by the auth token (HMAC-SHA1) or,
 * for a callback that names a SharedKey in `X-Twilio-Webhooks-Signature-Settings`, by `sharedKeySecret` with the
 * algorithm it names (`verifyTwilioWebhook`, the check that agrees with twilio-node) and refuses anything unsigned, forged, signed for
 * another URL or changed after signing. Its id, `<MessageSid>:<MessageStatus>`, makes a retried callback a
 * duplicate. Bad options throw an `InvalidInputError` naming the option.
 *
 * @example
 * createFlowHandler({ verikit, webhooks: { scheme: createTwilioStatusCallbackVerifier() } });
 */
export function createTwilioStatusCallbackVerifier(
  options: TwilioStatusCallbackVerifierOptions = {},
): TwilioStatusCallbackVerifier {
  return twilioFormVerifier(
    options,
    'TWILIO_STATUS_CALLBACK_URL',
    'the X-Twilio-Signature does not match the status callback URL and body',
    (body) => {
      const { sid, status } = readCallback(body);
      return `${sid}:${status}`;
    },
  );
}
