import { z } from 'zod';
import {
  defaultLogger,
  parseInput,
  phoneNumberLibrary,
  senderSchema,
  type IdentityType,
  type Logger,
  type ProviderV1,
} from '@verikit/provider';
import { errorCode } from '../logging/error-code.js';
import { defaultPolicies, type FlowPolicies } from '../flows/policies.js';
import type { ReviewNumber } from '../flows/review-numbers.js';
import {
  checkGuardOptions,
  resolveGuardOptions,
  type GuardSettings,
  type SendGuardOptions,
} from '../guard/guard-options.js';
import { inputSchemasFor, type InputSchemas } from '../inputs/inputs.js';
import type { FlowStore } from '../store/flow-store.js';
import { KeyvFlowStore } from '../store/keyv-flow-store.js';
import { MemoryChangeBus, type FlowChangeBus } from './change-bus.js';
import { systemClock, type Clock } from '../time/clock.js';
import { EngineTelemetry } from '../telemetry/engine-telemetry.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import {
  resolveEventWebhook,
  type EventWebhookOptions,
  type EventWebhookSettings,
} from '../outbound/event-webhook-options.js';
import { resolveTimerOptions, type TimerOptions, type TimerSettings } from './timer-worker.js';

/** Options of {@link createVerikit}. */
export interface VerikitOptions {
  /** The provider that sends codes and messages. */
  provider: ProviderV1;
  /** Where flows are kept. Default: an in-memory Keyv (one process). */
  store?: FlowStore;
  /**
   * The key for OTP hashes and sealed identity numbers: at least 32 characters, kept out of source
   * control. Every engine sharing a store must use the same secret.
   */
  secret: string;
  /** Default: the system clock. */
  clock?: Clock;
  /** Limits and timings; each field defaults to {@link defaultPolicies}. */
  policies?: Partial<FlowPolicies>;
  /** Carries committed changes to subscribers. Default: in-process. */
  changeBus?: FlowChangeBus;
  /**
   * Default: `defaultLogger`, warnings and errors to the console. verikit never logs secrets, codes or full
   * identity numbers.
   */
  logger?: Logger;
  /** The sender for `sendSms` when a call names none. Absent: the provider's default sender applies. */
  defaultSender?: string;
  /** Patterns for identity numbers, checked after the 11-digit default. Default: none beyond 11 digits. */
  identityNumberPatterns?: Partial<Record<'bvn' | 'nin', RegExp>>;
  /**
   * The send guard's limits and allowed countries (docs/abuse.md). Default: on, with
   * `defaultGuardLimits` and every country, counted where the flow store counts (Redis: shared).
   * `false` turns it off: only the per-number `maxSendsPerHour` is left.
   */
  guard?: SendGuardOptions | false;
  /**
   * ISO 3166-1 alpha-2 (`NG`): the country of numbers typed in national form (`0801 234 5678`). Every number
   * is parsed into E.164 at the edge (start, sendSms, sendWhatsApp), so limits, routes and proofs see one
   * form per handset. Absent: numbers must start with `+` or `00` and their country code.
   */
  defaultCountry?: string;
  /**
   * Up to 5 numbers whose phone verification code is fixed, for app-store review and monitoring: no code is sent
   * to them and the provider is never called for them; each use is logged at warning. Off unless set. Each code
   * must be strong (8 to 10 digits, not a run or a repeat), since it works in production: see docs/abuse.md.
   */
  reviewNumbers?: readonly ReviewNumber[];
  /**
   * Where spans and metrics go: `openTelemetry()` from `@verikit/core/opentelemetry`
   * (docs/observability.md). Default: none, at no cost.
   */
  telemetry?: Telemetry;
  /**
   * The app's webhook, to which the lifecycle events of every flow are POSTed, signed with Standard Webhooks,
   * at least once, shared by every instance on the store (docs/flows.md, "Events to your webhook"). Default: none.
   */
  eventWebhook?: EventWebhookOptions;
  /**
   * The flows' timers (an escalating plan's next channel, the fallback after a failed delivery): how often this
   * instance looks for due ones, and how long it holds one it took (docs/plans.md). Default: every second, held 5 s.
   */
  timers?: TimerOptions;
}

/** The options with every default applied: what the engine's parts are built from. */
export interface EngineSettings {
  readonly provider: ProviderV1;
  readonly secret: string;
  readonly policies: Readonly<FlowPolicies>;
  readonly store: FlowStore;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly bus: FlowChangeBus;
  readonly defaultSender: string | undefined;
  readonly identityNumberPatterns: Readonly<Partial<Record<IdentityType, RegExp>>>;
  /** The send guard's settings; undefined when it is off. */
  readonly guard: GuardSettings | undefined;
  /** The input schemas, numbers read with the engine's `defaultCountry`. */
  readonly inputs: InputSchemas;
  /** The review numbers as given; checked (and their numbers read with `defaultCountry`) when the engine builds them. */
  readonly reviewNumbers: readonly ReviewNumber[] | undefined;
  /** The country a national number is read in (`defaultCountry`); undefined: numbers start with `+` or `00`. */
  readonly defaultCountry: string | undefined;
  /** The spans and metrics; reports nothing without a `telemetry` option. */
  readonly telemetry: EngineTelemetry;
  /** The app's event webhook; undefined when none is set. */
  readonly eventWebhook: EventWebhookSettings | undefined;
  /** The flows' timers' poll and lease. */
  readonly timers: TimerSettings;
}

/** What `secret` must be, said in each of its errors. */
const secretRule =
  'a random string of 32 characters or more, such as process.env.VERIKIT_SECRET (openssl rand -base64 32 makes one), kept out of source control and the same on every instance';

const optionsSchema = z.object({
  provider: z.custom<ProviderV1>(
    (value) => typeof value === 'object' && value !== null && (value as ProviderV1).specificationVersion === 'v1',
    {
      error: 'must be a provider implementing specificationVersion v1',
    },
  ),
  secret: z
    .string({ error: (issue) => (issue.input === undefined ? `is required: ${secretRule}` : `must be ${secretRule}`) })
    .min(32, { error: `must be at least 32 characters: ${secretRule}`, abort: true })
    // Spaces or one character over and over pass a length check and protect nothing.
    .refine((secret) => secret.trim().length >= 32 && new Set(secret).size >= 8, {
      error: `must not be blank or a few characters repeated: ${secretRule}`,
    }),
  defaultSender: senderSchema.optional(),
  defaultCountry: z
    .string({ error: 'must be a country code such as NG' })
    .refine((code) => /^[A-Z]{2}$/.test(code) && phoneNumberLibrary().isSupportedCountry(code), {
      error: 'must be a country code the number library knows, such as NG',
    })
    .optional(),
  identityNumberPatterns: z
    .strictObject({
      bvn: z.instanceof(RegExp, { error: 'must be a RegExp' }).optional(),
      nin: z.instanceof(RegExp, { error: 'must be a RegExp' }).optional(),
    })
    .optional(),
  webhooks: z
    .undefined({
      error:
        'is configured on the HTTP layer: createWebhookHandler({ verikit, secret }) or createFlowHandler({ verikit, webhooks: { secret } }) from @verikit/http',
    })
    .optional(),
  telemetry: z
    .custom<Telemetry>(
      (value) =>
        typeof value === 'object' &&
        value !== null &&
        ['span', 'add', 'record'].every((name) => typeof (value as Record<string, unknown>)[name] === 'function'),
      { error: 'must be a Telemetry such as openTelemetry() from @verikit/core/opentelemetry' },
    )
    .optional(),
  clock: z
    .custom<Clock>(
      (value) => typeof value === 'object' && value !== null && typeof (value as Clock).now === 'function',
      {
        error: 'must be an object with a now() function',
      },
    )
    .optional(),
  timers: z
    .strictObject({
      pollMs: z.number().int().min(0).optional(),
      leaseMs: z.number().int().min(100).optional(),
    })
    .optional(),
  policies: z
    .strictObject({
      codeTtlMs: z.number().int().min(1000).optional(),
      maxAttempts: z.number().int().min(1).max(100).optional(),
      resendCooldownMs: z.number().int().min(0).optional(),
      resendCooldownGrowth: z.number().min(1).max(10).optional(),
      maxSendsPerFlow: z.number().int().min(1).max(100).optional(),
      maxSendsPerHour: z.number().int().min(1).optional(),
      effectTimeoutMs: z.number().int().min(100).optional(),
      otpLength: z.number().int().min(4).max(10).optional(),
      retentionMs: z.number().int().min(0).optional(),
    })
    .optional(),
});

/** Checks the options (an `InvalidInputError` naming the field) and applies the defaults. */
export function resolveOptions(options: VerikitOptions): EngineSettings {
  parseInput(optionsSchema, options);
  checkGuardOptions(options.guard);
  // Copies without the global and sticky flags, whose test() would remember where it stopped.
  const identityNumberPatterns: Partial<Record<IdentityType, RegExp>> = {};
  for (const idType of ['bvn', 'nin'] as const) {
    const pattern = options.identityNumberPatterns?.[idType];
    if (pattern) identityNumberPatterns[idType] = new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ''));
  }
  const logger = options.logger ?? defaultLogger;
  return {
    provider: options.provider,
    secret: options.secret,
    policies: Object.freeze({ ...defaultPolicies, ...options.policies }),
    store: options.store ?? new KeyvFlowStore(),
    clock: options.clock ?? systemClock,
    logger,
    bus:
      options.changeBus ??
      new MemoryChangeBus((error) => logger.error('verikit.listener.failed', { error: errorCode(error) })),
    defaultSender: options.defaultSender,
    identityNumberPatterns,
    guard: resolveGuardOptions(options.guard),
    inputs: inputSchemasFor(options.defaultCountry),
    reviewNumbers: options.reviewNumbers,
    defaultCountry: options.defaultCountry,
    telemetry: new EngineTelemetry(options.telemetry),
    eventWebhook: resolveEventWebhook(options.eventWebhook),
    timers: resolveTimerOptions(options.timers),
  };
}
