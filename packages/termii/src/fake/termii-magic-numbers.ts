import { magicNumbers, magicOf } from '@verikit/provider-utils/fake';
/** A failure the Termii fake produces on purpose. */
export type TermiiMagicBehaviour =
  | 'rejected'
  | 'server-error'
  | 'unauthorized'
  | 'slow'
  | 'not-json'
  | 'rate-limited'
  | 'dnd';

/** What each behaviour does, for docs and the CLI. */
export const termiiMagicDescriptions: Readonly<Record<TermiiMagicBehaviour, string>> = Object.freeze({
  rejected: 'HTTP 400 with a message, as Termii refuses a request',
  'server-error': 'HTTP 500',
  unauthorized: 'HTTP 401, as if the API key were revoked',
  slow: 'answers normally after slowMs (default 3000 ms)',
  'not-json': 'HTTP 200 with an HTML body',
  'rate-limited': 'HTTP 429',
  dnd: 'a number on Do-Not-Disturb: accepted on the generic route but never delivered; delivered on the dnd route',
});

const order: readonly TermiiMagicBehaviour[] = [
  'rejected',
  'server-error',
  'unauthorized',
  'slow',
  'not-json',
  'rate-limited',
  'dnd',
];

/**
 * E.164 numbers that fail on purpose: `+23480399000` followed by `01`…`07`. They are valid Nigerian
 * numbers, so they pass verikit's validation and reach the fake (which sees them without `+`).
 */
export const termiiMagicNumbers: Readonly<Record<string, TermiiMagicBehaviour>> = magicNumbers(
  '+23480399000',
  2,
  order,
);

/** The behaviour a Termii-format number (digits, no `+`) asks for, if any. */
export function termiiMagicOf(number: unknown): TermiiMagicBehaviour | undefined {
  return typeof number === 'string' ? magicOf(termiiMagicNumbers, `+${number}`) : undefined;
}
