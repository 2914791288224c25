import { z } from 'zod';
import { InvalidInputError, parseInput, phoneNumberLibrary } from '@verikit/provider';
import type { SendGuardStore } from '../store/send-guard-store.js';
import { rateCardSchema, type RateCard } from './rate-card.js';
import { resolveTripwire, tripwireSchema, type TripwireOptions, type TripwireSettings } from './tripwire-options.js';

/** A fixed-window limit: `points` sends per `windowMs`. */
export interface GuardLimit {
  /** Sends allowed in one window. */
  readonly points: number;
  /** The window, in ms; counted in whole seconds (rounded up). */
  readonly windowMs: number;
}

/** The per-prefix limit: sends to numbers that share their first `digits` national digits. */
export interface PrefixLimit extends GuardLimit {
  /**
   * National significant digits that make the prefix (`+234 801234 5678` with 6: `801234`). At
   * least 3 digits of every number are left out whatever this says, so a prefix is never a whole
   * number (docs/abuse.md).
   */
  readonly digits: number;
}

/** Money per hour and per day, in the rate card's currency; either may be left out. */
export interface MoneyBudget {
  /** At most this much spent in a (fixed) hour. */
  readonly perHour?: number;
  /** At most this much spent in a (fixed) day. */
  readonly perDay?: number;
}

/**
 * A budget in money (docs/abuse.md, "A budget in money"): sends that would take the spend of the hour or the day
 * past it are refused, before anything is sent. Each send is charged what it may cost at most on the rate card (its
 * channel and country, the dearest provider), so the budget is never overrun.
 */
export interface SendBudget extends MoneyBudget {
  /** Budgets per country (ISO 3166-1 alpha-2: `{ NG: { perHour: 5000 } }`), on top of the whole one. */
  readonly countries?: Readonly<Record<string, MoneyBudget>>;
}

/**
 * The send guard (docs/abuse.md): limits on sends that hold whatever the entry point and the
 * provider, checked before anything is sent or stored. Each limit defaults to
 * {@link defaultGuardLimits}; give part of one to change only that part, or `false` to turn it off.
 */
export interface SendGuardOptions {
  /** Sends per client (the `client` key given to `start`/`send`; the HTTP handler gives the client address). */
  perClient?: Partial<GuardLimit> | false;
  /** Sends per number prefix: catches runs of consecutive numbers (SMS pumping). */
  perPrefix?: Partial<PrefixLimit> | false;
  /** Sends in total: the budget of the whole deployment. */
  global?: Partial<GuardLimit> | false;
  /**
   * Dial-in references that matched no flow, per dialling number (`points` wrong references per `windowMs`): past
   * it, that number's dials are refused until the window ends, so references cannot be guessed by dialling.
   */
  wrongReferencesPerNumber?: Partial<GuardLimit> | false;
  /**
   * Dial-in references that matched no flow, in total: the bound on guessing from anywhere (a forged or spread
   * dial). Past it every dial is refused until the window ends: raise it with your dial-in traffic.
   */
  wrongReferences?: Partial<GuardLimit> | false;
  /**
   * The countries (ISO 3166-1 alpha-2: `NG`, `GH`) whose numbers may be sent to. Default: every
   * country the number library knows; numbers of no country (`+800`, `+882` satellite) are refused.
   */
  countries?: readonly string[];
  /**
   * What sends cost: a rate card per provider, channel and country. With one, every send that went out is priced
   * when it goes out and added to the cost ledger (`verikit.costs()`). Default: none, and no ledger.
   */
  prices?: RateCard;
  /**
   * A budget in money, in the rate card's currency (needs `prices`): a send that would take the hour's or the day's
   * spend past it is refused with a `RateLimitedError` and costs nothing. Default: none; the `global` count of
   * sends is the cap.
   */
  budget?: SendBudget;
  /**
   * The conversion tripwire: per country and number prefix, sends are refused for a while where, with confidence,
   * almost nobody verifies (SMS pumping). `{}` turns it on with its defaults, `{ mode: 'shadow' }` reports only.
   * Default: off (turn it on in shadow mode first: docs/abuse.md).
   */
  tripwire?: TripwireOptions;
  /**
   * Where the counts live. Default: the flow store's own (`FlowStore.sendGuardStore`, shared by every
   * instance on Redis), else this process's memory.
   */
  store?: SendGuardStore;
}

const minute = 60_000;
const hour = 60 * minute;

/**
 * The limits in force unless configured: 10 sends per client per 10 minutes, 10 per number prefix
 * (7 national digits) per hour, 1,000 in total per hour; 5 wrong dial-in references per dialling number and 300 in
 * total per 10 minutes. Tuning: docs/abuse.md.
 */
export const defaultGuardLimits: Readonly<{
  /** 10 sends per client in 10 minutes. */
  perClient: GuardLimit;
  /** 10 sends per 7-digit number prefix in an hour. */
  perPrefix: PrefixLimit;
  /** 1,000 sends in an hour, in all. */
  global: GuardLimit;
  /** 5 wrong dial-in references per dialling number in 10 minutes. */
  wrongReferencesPerNumber: GuardLimit;
  /** 300 wrong dial-in references in 10 minutes, in all. */
  wrongReferences: GuardLimit;
}> = Object.freeze({
  perClient: Object.freeze({ points: 10, windowMs: 10 * minute }),
  perPrefix: Object.freeze({ points: 10, windowMs: hour, digits: 7 }),
  global: Object.freeze({ points: 1000, windowMs: hour }),
  wrongReferencesPerNumber: Object.freeze({ points: 5, windowMs: 10 * minute }),
  wrongReferences: Object.freeze({ points: 300, windowMs: 10 * minute }),
});

/** The guard's options with the defaults applied; `undefined` limits are off. */
export interface GuardSettings {
  readonly perClient: GuardLimit | undefined;
  readonly perPrefix: PrefixLimit | undefined;
  readonly global: GuardLimit | undefined;
  readonly wrongReferencesPerNumber: GuardLimit | undefined;
  readonly wrongReferences: GuardLimit | undefined;
  /** The allowed countries; undefined: every country the number library knows. */
  readonly countries: ReadonlySet<string> | undefined;
  /** The rate card; undefined: sends are not priced. */
  readonly prices: RateCard | undefined;
  /** The budget in money; undefined: none. */
  readonly budget: SendBudget | undefined;
  /** The tripwire's settings; undefined: off. */
  readonly tripwire: TripwireSettings | undefined;
  readonly store: SendGuardStore | undefined;
}

const points = z.number({ error: 'must be a whole number from 1 to 1,000,000,000' }).int().min(1).max(1_000_000_000);
const windowMs = z
  .number({ error: 'must be a whole number of ms from 1,000 (a second) to 2,678,400,000 (31 days)' })
  .int()
  .min(1000)
  .max(31 * 24 * hour);
const limit = z.strictObject(
  { points: points.optional(), windowMs: windowMs.optional() },
  { error: 'must be { points, windowMs } or false' },
);
const prefixLimit = limit.extend({
  digits: z.number({ error: 'must be a whole number from 1 to 12' }).int().min(1).max(12).optional(),
});

const money = z
  .number({ error: 'must be an amount of money above 0, in the rate card currency' })
  .positive({ error: 'must be above 0' })
  .max(1_000_000_000, { error: 'must be at most 1,000,000,000' });

/** The guard's options object, `false` limits taken out first (no union, so an error keeps its path). */
const guardOptionsSchema = z.strictObject({
  perClient: limit.optional(),
  perPrefix: prefixLimit.optional(),
  global: limit.optional(),
  wrongReferencesPerNumber: limit.optional(),
  wrongReferences: limit.optional(),
  countries: z
    .array(
      z.string().refine((code) => /^[A-Z]{2}$/.test(code) && phoneNumberLibrary().isSupportedCountry(code), {
        error: 'must be a country code the number library knows, such as NG',
      }),
      {
        error: 'must be a list of country codes such as ["NG", "GH"]',
      },
    )
    .min(1, { error: 'must list at least one country' })
    .max(300, { error: 'must list at most 300 countries' })
    .optional(),
  prices: rateCardSchema.optional(),
  budget: z
    .strictObject(
      {
        perHour: money.optional(),
        perDay: money.optional(),
        countries: z
          .record(
            z.string().regex(/^[A-Z]{2}$/, { error: 'must be a country code such as NG' }),
            z.strictObject(
              { perHour: money.optional(), perDay: money.optional() },
              { error: 'must be { perHour?, perDay? }' },
            ),
          )
          .optional(),
      },
      { error: 'must be { perHour?, perDay?, countries? }' },
    )
    .optional(),
  tripwire: tripwireSchema.optional(),
  store: z
    .custom<SendGuardStore>(
      (value) => typeof value === 'object' && value !== null && typeof (value as SendGuardStore).limiter === 'function',
      {
        error: 'must be a send guard store (memorySendGuardStore(), createRedisSendGuard({ store }))',
      },
    )
    .optional(),
});

/** Checks `guard` of the engine's options; an `InvalidInputError` names the field (`guard.perPrefix.digits`). */
export function checkGuardOptions(options: unknown): void {
  if (options === undefined || options === false) return;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidInputError([{ field: 'guard', message: 'must be the send guard options or false' }]);
  }
  const limitsOn = Object.fromEntries(
    Object.entries(options).filter(
      ([name, value]) =>
        !(
          value === false &&
          ['perClient', 'perPrefix', 'global', 'wrongReferencesPerNumber', 'wrongReferences'].includes(name)
        ),
    ),
  );
  parseInput(guardOptionsSchema, limitsOn, 'guard');
  if ((options as SendGuardOptions).budget !== undefined && (options as SendGuardOptions).prices === undefined)
    throw new InvalidInputError([
      { field: 'guard.budget', message: 'needs guard.prices: a budget in money is counted on the rate card' },
    ]);
}

/** Applies the defaults to checked options; `false` turns the guard off. */
export function resolveGuardOptions(options: SendGuardOptions | false | undefined): GuardSettings | undefined {
  if (options === false) return undefined;
  const given = options ?? {};
  const pick = <T extends GuardLimit>(value: Partial<T> | false | undefined, fallback: T): T | undefined =>
    value === false ? undefined : Object.freeze({ ...fallback, ...stripUndefined(value ?? {}) });
  return {
    perClient: pick(given.perClient, defaultGuardLimits.perClient),
    perPrefix: pick(given.perPrefix, defaultGuardLimits.perPrefix),
    global: pick(given.global, defaultGuardLimits.global),
    wrongReferencesPerNumber: pick(given.wrongReferencesPerNumber, defaultGuardLimits.wrongReferencesPerNumber),
    wrongReferences: pick(given.wrongReferences, defaultGuardLimits.wrongReferences),
    countries: given.countries === undefined ? undefined : new Set(given.countries),
    prices: given.prices,
    budget: given.budget,
    tripwire: given.tripwire === undefined ? undefined : resolveTripwire(given.tripwire),
    store: given.store,
  };
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Partial<T>;
}
