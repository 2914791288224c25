import { z } from 'zod';

/** What one trip of the conversion tripwire says: where, on what figures, until when. Never a number or a code. */
export interface TripwireTrip {
  /** `country`: all numbers of a country; `prefix`: numbers sharing their first `digits` national digits. */
  readonly dimension: 'country' | 'prefix';
  /** The country code (`NG`) of a country; a keyed hash of a prefix (never the prefix itself). */
  readonly key: string;
  /** The country of the numbers, when known. */
  readonly country: string | undefined;
  /** Settled sends counted (faded, so fractional). */
  readonly sends: number;
  /** Verifications counted (faded), at most `sends`. */
  readonly verified: number;
  /** The upper bound of the verified share the statistic allows (Wilson score): below `minVerifiedShare`, a trip. */
  readonly upperBound: number;
  /** When the trip ends (engine clock, ms since the epoch); sends there are judged again after it. */
  readonly until: number;
  /** True in `shadow` mode: reported, nothing refused. */
  readonly shadow: boolean;
}

/**
 * The conversion tripwire (docs/abuse.md, "The conversion tripwire"): per country and number prefix, when the share of
 * sends that end verified is, with confidence, below `minVerifiedShare`, new sends there are refused for `tripMs`.
 */
export interface TripwireOptions {
  /** `refuse` (default): sends where it tripped are refused. `shadow`: the trip is logged and told, nothing refused. */
  mode?: 'refuse' | 'shadow';
  /** The verified share of sends below which a prefix or country trips. Default 0.1 (one send in ten verified). */
  minVerifiedShare?: number;
  /** Settled sends needed before anything is judged. Default 20. */
  minSends?: number;
  /**
   * How sure the statistic must be: the z of the Wilson score interval whose upper bound must fall below
   * `minVerifiedShare`. Default 1.96 (95%): no verification in 35 settled sends trips, one in 20 does not.
   */
  confidence?: number;
  /** How long after a send it is judged (a person needs time to read and type): default 60 s, up to twice that. */
  settleMs?: number;
  /** Counts fade with this half-life, so old traffic weighs less. Default 6 hours. */
  halfLifeMs?: number;
  /** How long a trip lasts before its sends are judged again. Default 1 hour. */
  tripMs?: number;
  /** National digits of the prefix (as the per-prefix limit's). Default 7. */
  digits?: number;
  /** Number prefixes in E.164 (`+2348031`) the tripwire never judges nor refuses: your own test ranges, partners. */
  allow?: readonly string[];
  /** Told of every trip (the event of the decision); a throw is logged, never the caller's error. */
  onTrip?: (trip: TripwireTrip) => void;
}

/** The tripwire's settings with the defaults applied. */
export type TripwireSettings = Required<Omit<TripwireOptions, 'onTrip'>> & Pick<TripwireOptions, 'onTrip'>;

/** The tripwire's defaults (docs/abuse.md). */
export const defaultTripwire: Readonly<Required<Omit<TripwireOptions, 'onTrip' | 'allow'>>> = Object.freeze({
  mode: 'refuse',
  minVerifiedShare: 0.1,
  minSends: 20,
  confidence: 1.96,
  settleMs: 60_000,
  halfLifeMs: 6 * 3_600_000,
  tripMs: 3_600_000,
  digits: 7,
});

const ms = (min: number, max: number, what: string) =>
  z
    .number({ error: `must be a whole number of ms from ${min} to ${max} (${what})` })
    .int()
    .min(min)
    .max(max);

/** The `guard.tripwire` schema. */
export const tripwireSchema = z.strictObject(
  {
    mode: z.enum(['refuse', 'shadow'], { error: 'must be refuse or shadow' }).optional(),
    minVerifiedShare: z.number({ error: 'must be a share above 0 and below 1' }).gt(0).lt(1).optional(),
    minSends: z.number({ error: 'must be a whole number from 1 to 100,000' }).int().min(1).max(100_000).optional(),
    confidence: z.number({ error: 'must be a z from 0 to 5 (1.96: 95%)' }).min(0).max(5).optional(),
    settleMs: ms(0, 3_600_000, 'up to an hour').optional(),
    halfLifeMs: ms(60_000, 30 * 86_400_000, 'a minute to 30 days').optional(),
    tripMs: ms(1000, 30 * 86_400_000, 'a second to 30 days').optional(),
    digits: z.number({ error: 'must be a whole number from 1 to 12' }).int().min(1).max(12).optional(),
    allow: z
      .array(z.string().regex(/^\+\d{1,14}$/, { error: 'must be an E.164 prefix such as +2348031' }))
      .max(10_000)
      .optional(),
    onTrip: z
      .custom<TripwireOptions['onTrip']>((value) => typeof value === 'function', {
        error: 'must be a function',
      })
      .optional(),
  },
  { error: 'must be the tripwire options, such as { mode: "shadow" }' },
);

/** Applies the defaults. */
export function resolveTripwire(options: TripwireOptions): TripwireSettings {
  const given = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
  return { ...defaultTripwire, allow: [], ...given } as TripwireSettings;
}
