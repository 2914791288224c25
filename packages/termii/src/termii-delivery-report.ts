import { InvalidInputError, type ProviderEventV1, type RawWebhookV1 } from '@verikit/provider';
import { parseTermiiJson } from './termii-json.js';

/**
 * How Termii signs its event webhooks (developers.termii.com/events-and-reports, read 2026-11-24): the header
 * `X-Termii-Signature` holds the HMAC-SHA512 of the payload, keyed with your account's secret key, in hex. Give it
 * to `@verikit/http` as the webhook scheme, with that secret key as `secret`:
 *
 * @example
 * createFlowHandler({ verikit, webhooks: { secret: process.env.TERMII_SECRET_KEY, scheme: termiiWebhookScheme } });
 */
export const termiiWebhookScheme: {
  /** An HMAC of the raw body in a header. */
  readonly type: 'hmac-header';
  /** The header Termii signs in. */
  readonly header: 'x-termii-signature';
  /** HMAC-SHA512. */
  readonly algorithm: 'sha512';
  /** The digest in hex. */
  readonly encoding: 'hex';
} = Object.freeze({ type: 'hmac-header', header: 'x-termii-signature', algorithm: 'sha512', encoding: 'hex' });

/** Statuses after which Termii will not deliver the message (the text before ` | `, in lower case). */
const undeliveredStatuses = new Set([
  'message failed',
  'dnd active on phone number',
  'rejected',
  'expired',
  'failed',
  'undelivered',
]);

/**
 * Reads one of Termii's event webhooks. An outbound delivery report (`type: "outbound"`) becomes a `delivery`
 * event for its `message_id`: `DELIVERED` (in any case, with or without Termii's ` | Message delivered to handset`)
 * is `delivered`; `Message Failed`, `DND Active on Phone Number`, `Rejected` and `Expired` are `undelivered` with
 * that status as the reason. A status on the way (`Message Sent`, `Received`) and any other event (an inbound
 * message, a device notice) are `null`: acknowledged and ignored. `sent_at` carries no time zone, so the receipt
 * carries no `at` and the engine takes the time it arrived. A `message_id` sent as a JSON number keeps all its
 * digits (`parseTermiiJson`), so the receipt names the message its send answer named. A body that is not a report Termii documents is an
 * `InvalidInputError` naming the field, never quoting the body (it holds the number and the message text).
 */
export function parseTermiiDeliveryReport(webhook: RawWebhookV1): ProviderEventV1 | null {
  let body: unknown;
  try {
    body = parseTermiiJson(webhook.body);
  } catch {
    throw new InvalidInputError([{ field: 'body', message: 'is not valid JSON' }]);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new InvalidInputError([{ field: 'body', message: 'must be a JSON object' }]);
  const report = body as Record<string, unknown>;
  if (report['type'] !== 'outbound') return null;
  const messageId = report['message_id'];
  if (
    (typeof messageId !== 'string' && typeof messageId !== 'number') ||
    !/^[\x21-\x7e]{1,256}$/.test(String(messageId))
  )
    throw new InvalidInputError([
      { field: 'message_id', message: 'must be 1 to 256 visible ASCII characters (a Termii delivery report)' },
    ]);
  const status = report['status'];
  if (typeof status !== 'string' || status.trim() === '')
    throw new InvalidInputError([
      { field: 'status', message: 'must be a non-empty string (a Termii delivery report)' },
    ]);
  const head = status.split('|')[0]!.trim();
  const key = head.toLowerCase();
  if (key === 'delivered') return { type: 'delivery', messageId: String(messageId), status: 'delivered' };
  if (undeliveredStatuses.has(key))
    return { type: 'delivery', messageId: String(messageId), status: 'undelivered', reason: head.slice(0, 200) };
  return null;
}
