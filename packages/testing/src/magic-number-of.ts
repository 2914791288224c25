/**
 * The number in a fake's magic-number table (`termiiMagicNumbers`, `twilioMagicNumbers`, …) that asks for
 * `behaviour`, the first in the table's order; throws when none does.
 *
 * @example
 * const slow = magicNumberOf(twilioMagicNumbers, 'slow'); // '+2348039800004'
 */
export function magicNumberOf<Behaviour extends string>(
  table: Readonly<Record<string, Behaviour>>,
  behaviour: Behaviour,
): string {
  const found = Object.entries(table).find(([, each]) => each === behaviour);
  if (found === undefined) throw new TypeError(`no magic number asks for ${behaviour}`);
  return found[0];
}
