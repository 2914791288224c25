import { magicNumbers, magicOf } from '@verikit/provider-utils/fake';
/** A failure the fake produces on purpose. */
export type MagicBehaviour =
  | 'rejected'
  | 'server-error'
  | 'unauthorized'
  | 'slow'
  | 'not-json'
  | 'wrong-shape'
  | 'rate-limited'
  | 'no-data';

/** What each behaviour does, for docs and the CLI. */
export const magicBehaviourDescriptions: Readonly<Record<MagicBehaviour, string>> = Object.freeze({
  rejected: 'HTTP 200, success:false with the endpoint failure message',
  'server-error': 'HTTP 500, failure envelope',
  unauthorized: 'HTTP 401, failure envelope (as if the apiKey were revoked)',
  slow: 'answers normally after slowMs (default 3000 ms)',
  'not-json': 'HTTP 200, an HTML body',
  'wrong-shape': 'HTTP 200, JSON without success/message ({"ok":true})',
  'rate-limited': 'HTTP 429, failure envelope',
  'no-data': 'HTTP 200, success:true with data null (no OTP, USSD code or requestId)',
});

const order: readonly MagicBehaviour[] = [
  'rejected',
  'server-error',
  'unauthorized',
  'slow',
  'not-json',
  'wrong-shape',
  'rate-limited',
  'no-data',
];

/**
 * Phone numbers (`phoneNumber` or `to`) that fail on purpose: `+23480300000` followed by `01`…`08`. They
 * are valid Nigerian numbers, so they pass verikit's own validation and reach the service.
 */
export const magicPhoneNumbers: Readonly<Record<string, MagicBehaviour>> = magicNumbers('+23480300000', 2, order);

/** BVNs and NINs that fail on purpose: `999999999` followed by `01`…`08`, the same order as the phone numbers. */
export const magicIdentityNumbers: Readonly<Record<string, MagicBehaviour>> = magicNumbers('999999999', 2, order);

/** The behaviour a body asks for through a magic number, if any. */
export function magicBehaviourOf(body: Record<string, unknown>): MagicBehaviour | undefined {
  return (
    magicOf(magicPhoneNumbers, body['phoneNumber']) ??
    magicOf(magicPhoneNumbers, body['to']) ??
    magicOf(magicIdentityNumbers, body['number'])
  );
}
