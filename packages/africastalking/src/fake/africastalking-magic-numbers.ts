import { magicNumbers, magicOf } from '@verikit/provider-utils/fake';
/** A failure the Africa's Talking fake produces on purpose. */
export type AfricasTalkingMagicBehaviour =
  | 'invalid-number'
  | 'server-error'
  | 'unauthorized'
  | 'slow'
  | 'not-json'
  | 'dnd'
  | 'insufficient-balance'
  | 'blacklisted'
  | 'gateway-error'
  | 'undelivered';

/** What each behaviour does, for docs and the CLI. */
export const africasTalkingMagicDescriptions: Readonly<Record<AfricasTalkingMagicBehaviour, string>> = Object.freeze({
  'invalid-number': 'HTTP 201, recipient statusCode 403 InvalidPhoneNumber',
  'server-error': 'HTTP 500',
  unauthorized: 'HTTP 401, as if the API key were revoked',
  slow: 'answers normally after slowMs (default 3000 ms)',
  'not-json': 'HTTP 201 with an HTML body',
  dnd: 'HTTP 201, recipient statusCode 409 DoNotDisturbRejection',
  'insufficient-balance': 'HTTP 201, recipient statusCode 405 InsufficientBalance',
  blacklisted: 'HTTP 201, recipient statusCode 406 UserInBlacklist',
  'gateway-error': 'HTTP 201, recipient statusCode 500 InternalServerError',
  undelivered:
    'HTTP 201, recipient statusCode 101 Success; then a delivery report Failed, failureReason DeliveryFailure',
});

const order: readonly AfricasTalkingMagicBehaviour[] = [
  'invalid-number',
  'server-error',
  'unauthorized',
  'slow',
  'not-json',
  'dnd',
  'insufficient-balance',
  'blacklisted',
  'gateway-error',
  'undelivered',
];

/**
 * E.164 numbers that fail on purpose: `+254711999` then `001`…`010`. They are valid Kenyan mobile numbers, so
 * they pass verikit's validation and reach the fake.
 */
export const africasTalkingMagicNumbers: Readonly<Record<string, AfricasTalkingMagicBehaviour>> = magicNumbers(
  '+254711999',
  3,
  order,
);

/** The behaviour an E.164 number asks for, if any. */
export function africasTalkingMagicOf(number: string): AfricasTalkingMagicBehaviour | undefined {
  return magicOf(africasTalkingMagicNumbers, number);
}
