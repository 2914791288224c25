/** Reads a dotted path (`data.otp`) from a parsed JSON value; `undefined` where any step is missing. */
export function readPath(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split('.')) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    if (!Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/**
 * The first non-empty string (or finite number, as a string) found at one of `paths`, with the path it
 * was found at; `undefined` when none has one.
 */
export function readFirstText(value: unknown, paths: readonly string[]): { path: string; text: string } | undefined {
  for (const path of paths) {
    const found = readPath(value, path);
    if (typeof found === 'string' && found.trim() !== '') return { path, text: found.trim() };
    if (typeof found === 'number' && Number.isFinite(found)) return { path, text: String(found) };
  }
  return undefined;
}
