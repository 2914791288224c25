import { InvalidInputError, type ProviderEventV1, type RawWebhookV1 } from '@verikit/provider';
import { readFirstText, readPath } from './field-path.js';
import type { GatewayMapping } from './gateway-settings.js';

const defaultEventPaths = ['event', 'type', 'eventType', 'event_type', 'data.event', 'data.type', 'data.eventType'];
const defaultPhonePaths = [
  'phoneNumber',
  'phone',
  'msisdn',
  'phone_number',
  'data.phoneNumber',
  'data.phone',
  'data.msisdn',
  'data.phone_number',
];
const defaultStatusPaths = [
  'status',
  'verificationStatus',
  'result',
  'verified',
  'data.status',
  'data.verificationStatus',
  'data.result',
  'data.verified',
];
const defaultSuccess = ['success', 'successful', 'verified', 'completed', 'true'];
const defaultFailure = ['failed', 'failure', 'false'];

/**
 * The USSD_VERIFICATION body the service sends, as verikit reads it by default (the interface names
 * the contents, not the fields: docs/service.md). The sandbox sends exactly this, plus a `reference` and a
 * `timestamp` the parser ignores.
 */
export interface GatewayWebhookBody {
  /** The event name, the only one the service sends. */
  readonly event: 'USSD_VERIFICATION';
  /** The number that dialled, in E.164. */
  readonly phoneNumber: string;
  /** `success` when the user entered the right OTP. */
  readonly status: 'success' | 'failed';
}

const normaliseName = (value: string) =>
  value
    .trim()
    .toUpperCase()
    .replace(/[.\s-]+/g, '_');

/**
 * Builds `webhooks.parse` for the USSD_VERIFICATION event: the one reader of the service's webhook
 * body (the provider uses it, and tests give it to the test double). Exported as
 * `createGatewayWebhookParser`. Defaults to
 * `{ event: 'USSD_VERIFICATION', phoneNumber, status }`, and tolerates common alternatives (`type`,
 * `eventType`; `phone`, `msisdn`; a `data` wrapper; boolean statuses) unless a mapping names the path.
 * Unknown events give `null`; malformed bodies an `InvalidInputError` that never quotes the body.
 */
export function createWebhookParser(
  mapping: GatewayMapping['webhook'] = {},
): (webhook: RawWebhookV1) => ProviderEventV1 | null {
  const eventPaths = mapping.event ? [mapping.event] : defaultEventPaths;
  const phonePaths = mapping.phoneNumber ? [mapping.phoneNumber] : defaultPhonePaths;
  const statusPaths = mapping.status ? [mapping.status] : defaultStatusPaths;
  const eventName = normaliseName(mapping.eventName ?? 'USSD_VERIFICATION');
  const success = new Set((mapping.successValues ?? defaultSuccess).map((value) => value.trim().toLowerCase()));
  const failure = new Set((mapping.failureValues ?? defaultFailure).map((value) => value.trim().toLowerCase()));

  return (webhook) => {
    if (typeof webhook !== 'object' || webhook === null || typeof webhook.body !== 'string') {
      throw new InvalidInputError([{ field: 'body', message: 'must be the raw body as a string' }]);
    }
    let payload: unknown;
    try {
      payload = JSON.parse(webhook.body);
    } catch {
      throw new InvalidInputError([{ field: 'body', message: 'is not valid JSON' }]);
    }
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      throw new InvalidInputError([{ field: 'body', message: 'must be a JSON object' }]);
    }
    const event = readFirstText(payload, eventPaths);
    if (event === undefined)
      throw new InvalidInputError([{ field: eventPaths[0]!, message: 'is required: the event type' }]);
    if (normaliseName(event.text) !== eventName) return null;

    const phone = readFirstText(payload, phonePaths);
    if (phone === undefined) throw new InvalidInputError([{ field: phonePaths[0]!, message: 'is required' }]);
    const digits = phone.text.replace(/^\+/, '');
    if (!/^[1-9]\d{6,14}$/.test(digits)) {
      throw new InvalidInputError([{ field: phone.path, message: 'must be a phone number in international form' }]);
    }

    let rawStatus: string | undefined;
    let statusPath = statusPaths[0]!;
    for (const path of statusPaths) {
      const value = readPath(payload, path);
      if (typeof value === 'boolean' || (typeof value === 'string' && value.trim() !== '')) {
        rawStatus = String(value).trim().toLowerCase();
        statusPath = path;
        break;
      }
    }
    if (rawStatus === undefined) throw new InvalidInputError([{ field: statusPath, message: 'is required' }]);
    let status: 'success' | 'failed';
    if (success.has(rawStatus)) status = 'success';
    else if (failure.has(rawStatus)) status = 'failed';
    else throw new InvalidInputError([{ field: statusPath, message: 'is not a known verification status' }]);

    return { type: 'ussd-verification', phoneNumber: `+${digits}`, status };
  };
}
