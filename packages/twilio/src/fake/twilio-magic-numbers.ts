import { magicNumbers, magicOf } from '@verikit/provider-utils/fake';
/** A failure the Twilio fake produces on purpose. */
export type TwilioMagicBehaviour =
  | 'rejected'
  | 'server-error'
  | 'unauthorized'
  | 'slow'
  | 'not-json'
  | 'rate-limited'
  | 'max-send-attempts'
  | 'unsubscribed'
  | 'undelivered';

/** What each behaviour does, for docs and the CLI. */
export const twilioMagicDescriptions: Readonly<Record<TwilioMagicBehaviour, string>> = Object.freeze({
  rejected: 'HTTP 400, Twilio error 60200 (Verify) or 21211 (Messaging): invalid number',
  'server-error': 'HTTP 500, Twilio error 20500',
  unauthorized: 'HTTP 401, Twilio error 20003, as if the credentials were revoked',
  slow: 'answers normally after slowMs (default 3000 ms)',
  'not-json': 'HTTP 200 with an HTML body',
  'rate-limited': 'HTTP 429, Twilio error 20429',
  'max-send-attempts': 'HTTP 429, Twilio error 60203 (max send attempts reached)',
  unsubscribed: 'HTTP 400, Twilio error 21610 (the recipient replied STOP)',
  undelivered: 'Messaging: accepted (queued), then sent and undelivered, Twilio error 30003 (unreachable handset)',
});

const order: readonly TwilioMagicBehaviour[] = [
  'rejected',
  'server-error',
  'unauthorized',
  'slow',
  'not-json',
  'rate-limited',
  'max-send-attempts',
  'unsubscribed',
  'undelivered',
];

/** E.164 numbers that fail on purpose: `+23480398000` followed by `01`…`09` (valid Nigerian numbers). */
export const twilioMagicNumbers: Readonly<Record<string, TwilioMagicBehaviour>> = magicNumbers(
  '+23480398000',
  2,
  order,
);

/** The behaviour a `To` (E.164, or `whatsapp:` and E.164) asks for, if any. */
export function twilioMagicOf(to: unknown): TwilioMagicBehaviour | undefined {
  return typeof to === 'string' ? magicOf(twilioMagicNumbers, to.replace(/^whatsapp:/, '')) : undefined;
}
