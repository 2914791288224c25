import { InvalidInputError, parseInput } from '@verikit/provider';
import { z } from 'zod';
import type { HttpHooks } from './http-client.js';
import { transportDefaults, transportSettingsShape, type TransportSettings } from './settings-schemas.js';

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

/**
 * The settings every HTTP provider takes besides its own, with their defaults. A provider's settings type
 * extends it: `interface TermiiProviderSettings extends HttpProviderSettings<TermiiOperation> { … }`.
 */
export interface HttpProviderSettings<Operation extends string = string> {
  /** Per-request timeout in ms, 1 to 600,000. Default 10,000. */
  readonly timeout?: number;
  /** A fetch to send through (a proxy agent, a test recorder). Default: undici's `Agent.request()` (decision 0510). */
  readonly fetch?: typeof globalThis.fetch;
  /** ky hooks for tracing and logging: they never see the credentials. */
  readonly hooks?: HttpHooks<Operation>;
  /** Retries of a refused connection (the only failure that provably did not leave). Default 1; 0 to 5. */
  readonly connectionRetries?: number;
  /** Wait before such a retry, in ms, 0 to 10,000. Default 50. */
  readonly connectionRetryDelayMs?: number;
  /** `provider.name`, in logs and errors. Default: the provider's own (`termii`, `twilio`). */
  readonly name?: string;
}

/** A setting that, when not passed, comes from an environment variable, read at each call (decision 0111). */
export interface EnvironmentSetting<T> {
  /** The variable read when the option is not passed, e.g. `TERMII_API_KEY`. */
  readonly variable: string;
  /** Checks the option and the variable's text alike; its errors name the option or the variable, never the value. */
  readonly schema: z.ZodType<T, string>;
  /** Used when neither the option nor the variable is set. */
  readonly fallback?: T;
  /** True when the setting may be absent altogether: its reader then returns `undefined`. */
  readonly optional?: true;
}

/** The reader of one environment setting: `T | undefined` for an optional one. */
export type EnvironmentReaders<Environment extends Record<string, EnvironmentSetting<unknown>>> = {
  readonly [K in keyof Environment]: Environment[K] extends Required<Pick<EnvironmentSetting<unknown>, 'optional'>>
    ? SettingReader<z.output<Environment[K]['schema']> | undefined>
    : SettingReader<z.output<Environment[K]['schema']>>;
};

/**
 * The settings object a provider's code reads, `{ ...readers, ...transport }` of {@link resolveProviderSettings}: a
 * reader per environment setting and the transport settings with their defaults, typed from the provider's
 * environment definition, so the provider writes its settings once. Its own options are added beside it.
 */
export type ProviderSettingsOf<Environment extends Record<string, EnvironmentSetting<unknown>>> =
  EnvironmentReaders<Environment> & TransportSettings<HttpHooks>;

/** What {@link resolveProviderSettings} returns: the provider's own options parsed, the readers, the transport. */
export interface ResolvedProviderSettings<
  Options extends z.ZodRawShape,
  Environment extends Record<string, EnvironmentSetting<unknown>>,
> {
  /** The provider's own options, parsed (unset ones `undefined`: the provider applies its defaults). */
  readonly options: z.output<z.ZodObject<Options>>;
  /** One reader per environment setting: the option passed, else the variable at each call, else the fallback. */
  readonly readers: EnvironmentReaders<Environment>;
  /** The transport settings with their defaults, ready for `createHttpClient`. */
  readonly transport: TransportSettings<HttpHooks>;
}

/** How one provider's settings are read: its default name, its environment settings and its other options. */
export interface ProviderSettingsDefinition<
  Options extends z.ZodRawShape,
  Environment extends Record<string, EnvironmentSetting<unknown>>,
> {
  /** The provider's default name (`termii`): `provider.name` unless the `name` option says otherwise. */
  readonly name: string;
  /** The settings that fall back to an environment variable, by option name. */
  readonly environment: Environment;
  /** The provider's other options, by name, each schema `.optional()`. */
  readonly options: Options;
}

/**
 * Reads a provider factory's settings the one way every provider does (decision 0111): unknown keys refused (so a
 * typo surfaces), each option checked by its schema, the environment settings not passed read from their
 * variable at each call, all of them read once now (a missing or malformed one fails at creation, naming the
 * option or the variable, never the value), and the transport options with their defaults.
 *
 * @example
 * const { options, readers, transport } = resolveProviderSettings(settings, {
 *   name: 'acme',
 *   environment: { apiKey: { variable: 'ACME_API_KEY', schema: secretSchema } },
 *   options: { region: z.enum(['eu', 'us']).optional() },
 * });
 */
export function resolveProviderSettings<
  Options extends z.ZodRawShape,
  Environment extends Record<string, EnvironmentSetting<unknown>>,
>(
  settings: unknown,
  definition: ProviderSettingsDefinition<Options, Environment>,
): ResolvedProviderSettings<Options, Environment> {
  const shape: Record<string, z.core.$ZodType> = { ...definition.options };
  for (const [name, setting] of Object.entries(definition.environment)) shape[name] = setting.schema.optional();
  const schema = z.strictObject({ ...shape, ...transportSettingsShape }, { error: 'must be a settings object' });
  const parsed = parseInput(schema, settings === undefined ? {} : settings) as Record<string, unknown>;
  const readers: Record<string, SettingReader<unknown>> = {};
  for (const [name, setting] of Object.entries(definition.environment)) {
    readers[name] = settingReader<unknown>({
      name,
      environmentVariable: setting.variable,
      schema: setting.schema,
      value: parsed[name],
      ...(setting.fallback === undefined ? {} : { fallback: setting.fallback }),
      ...(setting.optional === true ? { optional: true } : {}),
    });
  }
  checkSettings(Object.values(readers));
  const options: Record<string, unknown> = {};
  for (const name of Object.keys(definition.options)) options[name] = parsed[name];
  return {
    options: options as z.output<z.ZodObject<Options>>,
    readers: readers as EnvironmentReaders<Environment>,
    transport: transportDefaults<HttpHooks>(parsed, definition.name),
  };
}
