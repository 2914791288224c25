import { InvalidInputError, parseInput } from '@verikit/provider';
import { describe, expect, it } from 'vitest';
import { StartInputs } from '../engine/start-flow.js';
import { inputSchemasFor, phoneStartByHand, type ParsedStartInput } from './inputs.js';
import { seededRandom } from '../seeded-random.fixtures.js';

// The phone start checked by hand against the start schema it stands in for: on many inputs, valid and not, built
// at random from numbers of several countries and operators written in several ways, and from every other field
// valid, invalid, undefined or absent, the hand check takes a plain phone start exactly when zod accepts it, and
// then returns zod's object (the same fields, values and order); what it does not take, zod parses.

/** Nigerian numbers of MTN, Airtel, Glo and 9mobile (national prefixes), and a Lagos landline. */
const nigerianPrefixes = [
  ...['0803', '0806', '0703', '0706', '0813', '0816', '0810', '0814', '0903', '0906', '0913', '0916'],
  ...['0802', '0808', '0708', '0812', '0701', '0902', '0901', '0907', '0912'],
  ...['0805', '0807', '0705', '0815', '0811', '0905', '0915'],
  ...['0809', '0817', '0818', '0909', '0908'],
];

/** A number as a person might type it: many countries, kinds and ways of writing, and some that are no number. */
function randomNumber(next: () => number): unknown {
  const pick = <T>(choices: readonly T[]): T => choices[Math.floor(next() * choices.length)]!;
  const digits = (count: number) => Array.from({ length: count }, () => Math.floor(next() * 10)).join('');
  const national = `${pick(nigerianPrefixes)}${digits(7)}`;
  const international = pick([
    `+234${national.slice(1)}`,
    `+2341${digits(7)}`, // Lagos landline
    `+233${pick(['24', '54', '55', '20', '50', '30'])}${digits(7)}`, // Ghana
    `+254${pick(['7', '1', '20'])}${digits(8)}`, // Kenya
    `+44${pick(['7', '20', '121'])}${digits(pick([8, 9, 7]))}`, // UK
    `+1${pick(['202', '415', '212', '800', '555'])}${digits(7)}`, // US
    `+${digits(pick([3, 8, 12, 17]))}`,
  ]);
  return pick<unknown>([
    international,
    international,
    national,
    `${national.slice(0, 4)} ${national.slice(4, 7)} ${national.slice(7)}`,
    `00${international.slice(1)}`,
    `${international.slice(0, 4)} ${international.slice(4)}`,
    `+234 (0) ${national.slice(1)}`,
    `+2340${national.slice(1)}`,
    `${international}x`,
    '',
    '   ',
    'twelve',
    `+${'9'.repeat(41)}`,
    2348031234567,
    null,
    undefined,
  ]);
}

const absent = Symbol('absent');

/** Each field's values at random: those a start may give (absent often), then those it may not. */
const fieldValues: ReadonlyArray<[name: string, valid: readonly unknown[], invalid: readonly unknown[]]> = [
  ['channel', [absent, absent, absent, undefined, 'sms', 'voice', 'whatsapp'], ['fax', 'SMS', 3]],
  [
    'channels',
    [absent, absent, absent, undefined, ['sms'], ['voice'], ['whatsapp', 'sms', 'voice'], ['sms-inbound']],
    [['sms', 'sms'], [], ['sms', 'voice', 'whatsapp', 'sms-inbound', 'whatsapp-inbound', 'sms'], ['fax'], 'sms'],
  ],
  ['locale', [absent, absent, absent, undefined, 'en', 'pt-BR', 'zh-Hant'], ['EN', 'english!', 5]],
  ['from', [absent, absent, absent, undefined, 'Verikit', '+2348031234567'], ['A sender too long', '']],
  ['escalateAfterMs', [absent, absent, absent, undefined, 15_000, 900_000, 45_000], [14_999, 30_000.5, '30000', NaN]],
  ['extra', [absent], [1, undefined]],
];

/**
 * A start input at random: mostly phone starts; in half of them every field but the number is one a start may
 * give, in the other half each field may be anything.
 */
function randomInput(next: () => number): unknown {
  const pick = <T>(choices: readonly T[]): T => choices[Math.floor(next() * choices.length)]!;
  const valid = next() < 0.5;
  const fields: Array<[string, unknown]> = [
    ['kind', valid ? 'phone' : pick<unknown>(['phone', 'phone', 'ussd', 'dial-in', 'sms', undefined, absent])],
    ['phoneNumber', valid || next() < 0.95 ? randomNumber(next) : absent],
    ...fieldValues.map(([name, good, bad]): [string, unknown] => [
      name,
      valid || next() < 0.7 ? pick(good) : pick(bad),
    ]),
  ];
  // Given in any order: the output's order is the schema's.
  for (let index = fields.length - 1; index > 0; index -= 1) {
    const other = Math.floor(next() * (index + 1));
    [fields[index], fields[other]] = [fields[other]!, fields[index]!];
  }
  const input: Record<string, unknown> = {};
  for (const [name, value] of fields) if (value !== absent) input[name] = value;
  const form = next();
  if (form < 0.9) return input;
  if (form < 0.93) return Object.assign(Object.create(null), input);
  if (form < 0.95) return Object.assign(Object.create({ kind: 'phone' }), input);
  if (form < 0.97) return [input];
  return Object.defineProperty({ ...input }, 'channel', { value: 'voice', enumerable: false });
}

/** An outcome compared field by field, in order: the fields' names and values, or the error's issues. */
function outcome(parse: () => ParsedStartInput): unknown {
  try {
    const parsed = parse();
    return { entries: Object.entries(parsed), frozen: Object.isFrozen(parsed) };
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    return { issues: error.issues };
  }
}

const isPlainPhoneStart = (input: unknown): boolean =>
  typeof input === 'object' &&
  input !== null &&
  Object.getPrototypeOf(input) === Object.prototype &&
  (input as { kind?: unknown }).kind === 'phone';

describe.each([undefined, 'NG', 'GB'])('the phone start checked by hand (default country %s)', (defaultCountry) => {
  const schemas = inputSchemasFor(defaultCountry);
  const byHand = phoneStartByHand(defaultCountry, schemas.phoneStart);

  it('takes a plain phone start exactly when zod accepts it, and returns what zod returns', () => {
    const next = seededRandom(3801);
    let taken = 0;
    for (let round = 0; round < 4000; round += 1) {
      const input = randomInput(next);
      const fromZod = schemas.start.safeParse(input);
      const fromHand = byHand(input);
      if (fromHand !== undefined) {
        taken += 1;
        expect(fromZod.success, JSON.stringify(input)).toBe(true);
        // Same fields, values and order (an undefined field given stays, as zod keeps it).
        expect(Object.entries(fromHand), JSON.stringify(input)).toStrictEqual(Object.entries(fromZod.data!));
      }
      if (isPlainPhoneStart(input)) expect(fromHand !== undefined, JSON.stringify(input)).toBe(fromZod.success);
    }
    // The draw reaches both sides: many starts taken by hand, many left to zod.
    expect(taken).toBeGreaterThan(400);
    expect(taken).toBeLessThan(3600);
  });

  it("leaves the engine's answers as zod's: the same parsed inputs, and the same issues for every refusal", () => {
    const withHand = new StartInputs(schemas.start, byHand);
    const zodOnly = new StartInputs(schemas.start);
    const next = seededRandom(1960);
    for (let round = 0; round < 2000; round += 1) {
      const input = randomInput(next);
      expect(
        outcome(() => withHand.parse(input)),
        JSON.stringify(input),
      ).toStrictEqual(outcome(() => zodOnly.parse(input)));
    }
  });

  it('checks a typical start by hand, and refuses nothing itself', () => {
    const input = { kind: 'phone', phoneNumber: '+234 803 123 4567', channel: 'voice' };
    expect(byHand(input)).toStrictEqual(parseInput(schemas.start, input));
    expect(byHand({ kind: 'phone', phoneNumber: '+23480312' })).toBeUndefined();
    expect(byHand({ kind: 'phone', phoneNumber: '+442079460000', channel: 'sms' })).toBeUndefined();
  });
});
