/**
 * The numbers that make a fake fail on purpose: `prefix` followed by 1, 2, … padded to `digits`, each asking for
 * the behaviour at its place in `behaviours` (`magicNumbers('+23480399000', 2, ['rejected', 'server-error'])` maps
 * `+2348039900001` to `rejected`). A fake's own list of behaviours is its scripted data; this is the table built from it.
 */
export function magicNumbers<Behaviour extends string>(
  prefix: string,
  digits: number,
  behaviours: readonly Behaviour[],
): Readonly<Record<string, Behaviour>> {
  return Object.freeze(
    Object.fromEntries(
      behaviours.map((behaviour, index) => [`${prefix}${String(index + 1).padStart(digits, '0')}`, behaviour]),
    ),
  );
}

/** The behaviour `number` asks for in `table`, if any (only the table's own keys count). */
export function magicOf<Behaviour extends string>(
  table: Readonly<Record<string, Behaviour>>,
  number: unknown,
): Behaviour | undefined {
  return typeof number === 'string' && Object.hasOwn(table, number) ? table[number] : undefined;
}
