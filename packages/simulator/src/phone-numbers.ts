import { InvalidInputError, readPhoneNumber } from '@verikit/provider';
import { africasTalkingMagicNumbers } from '@verikit/africastalking/fake';
import { magicPhoneNumbers } from '@verikit/gateway/fake';
import { termiiMagicNumbers } from '@verikit/termii/fake';
import { twilioMagicNumbers } from '@verikit/twilio/fake';
import { below, randomStream, type Random } from './random.js';

/** The fakes' magic numbers fail on purpose: a simulated handset never has one. */
const magic = new Set([
  ...Object.keys(termiiMagicNumbers),
  ...Object.keys(twilioMagicNumbers),
  ...Object.keys(africasTalkingMagicNumbers),
  ...Object.keys(magicPhoneNumbers),
]);

const lengths = new Map<string, number>();

/** A valid mobile number (SMS-capable, by libphonenumber's full metadata) or undefined. */
function mobile(number: string): boolean {
  return readPhoneNumber(number, { use: 'sms' }).ok && !magic.has(number);
}

/** Random digits after `prefix` up to `length` digits in all (the `+` not counted). */
function fill(random: Random, prefix: string, length: number): string {
  let number = prefix;
  while (number.length - 1 < length) number += String(below(random, 10));
  return number;
}

/**
 * The digit count (after the `+`) of mobile numbers that start with `prefix`: the length at which random
 * numbers under the prefix are most often valid. An `InvalidInputError` naming `field` when none is.
 */
export function numberLengthOf(prefix: string, field: string): number {
  const known = lengths.get(prefix);
  if (known !== undefined) return known;
  const random = randomStream(0x6e756d, prefix.length, Number(prefix.slice(1, 9)));
  let best = 0;
  let bestValid = 0;
  for (let length = prefix.length; length <= 15; length += 1) {
    let valid = 0;
    for (let sample = 0; sample < 40; sample += 1) if (mobile(fill(random, prefix, length))) valid += 1;
    if (valid > bestValid) [best, bestValid] = [length, valid];
  }
  if (bestValid === 0)
    throw new InvalidInputError([{ field, message: 'is not the start of any mobile number the number library knows' }]);
  lengths.set(prefix, best);
  return best;
}

/** A valid mobile number under `prefix`, drawn from `random`, not in `taken` (every handset differs). */
export function drawNumber(random: Random, prefix: string, taken: ReadonlySet<string>): string {
  const length = numberLengthOf(prefix, 'prefix');
  for (let tries = 0; tries < 1000; tries += 1) {
    const number = fill(random, prefix, length);
    if (!taken.has(number) && mobile(number)) return number;
  }
  throw new InvalidInputError([{ field: 'prefix', message: `has too few free mobile numbers under ${prefix}` }]);
}
