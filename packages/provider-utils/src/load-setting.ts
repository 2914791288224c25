import { InvalidInputError, parseInput } from '@verikit/provider';
import type { z } from 'zod';

/** Where a provider setting comes from when the factory is not given it. */
export interface SettingSource<T> {
  /** The option's name, e.g. `apiKey`: what an error names when the setting is missing. */
  readonly name: string;
  /** The environment variable read when the option is not passed, e.g. `TERMII_API_KEY`. */
  readonly environmentVariable: string;
  /** Validates (and may transform) the environment's text; its errors name the variable, never the value. */
  readonly schema: z.ZodType<T, string>;
  /** The value passed to the factory (already validated there). When set, the environment is not read. */
  readonly value?: T | undefined;
  /** Used when neither the option nor the variable is set. Without it (and without `optional`) the setting is required. */
  readonly fallback?: T;
  /** True when the setting may be absent altogether: the reader then returns `undefined`. */
  readonly optional?: boolean;
}

/** Reads a setting when a call is made. */
export type SettingReader<T> = () => T;

function environment(): Record<string, string | undefined> {
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};
}

/**
 * Returns a reader of one setting: the value passed to the factory if any, else the environment
 * variable read at each call (a rotated key is picked up without a restart; its parse is cached while
 * the text is unchanged), else the fallback. A missing or malformed setting throws an
 * `InvalidInputError` naming the option or the variable, never its value. The value is never logged.
 */
export function settingReader<T>(source: SettingSource<T>): SettingReader<T> {
  if (source.value !== undefined) {
    const value = source.value;
    return () => value;
  }
  let lastText: string | undefined;
  let lastValue: T | undefined;
  return () => {
    const text = environment()[source.environmentVariable];
    if (text === undefined || text === '') {
      if (source.fallback !== undefined) return source.fallback;
      if (source.optional === true) return undefined as T;
      throw new InvalidInputError([
        { field: source.name, message: `is required: pass ${source.name}, or set ${source.environmentVariable}` },
      ]);
    }
    if (text !== lastText) {
      lastValue = parseInput(source.schema, text, source.environmentVariable);
      lastText = text;
    }
    return lastValue as T;
  };
}

/**
 * Reads every setting once, so a factory fails at once when one is missing or malformed (naming it),
 * while each call still reads them again.
 */
export function checkSettings(readers: readonly SettingReader<unknown>[]): void {
  for (const read of readers) read();
}
