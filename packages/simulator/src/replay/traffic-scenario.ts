import { z } from 'zod';

const duration = z.union([
  z.number().nonnegative(),
  z.strictObject({
    /** The median, in seconds. */
    median: z.number().positive(),
    /** The 95th percentile, in seconds. */
    p95: z.number().positive(),
  }),
]);
const share = z.number({ error: 'must be a share from 0 to 1' }).min(0).max(1);
const prefix = z.string().regex(/^\+\d{4,13}$/, { error: 'must be an E.164 prefix such as +2348031234' });

/**
 * Synthetic traffic for `verikit replay` (docs/abuse.md, "Replay an attack"): starts spread over days by an hourly
 * pattern, people who verify or not, and pumping bots on a few prefixes that never verify and resend.
 */
export const trafficScenarioSchema = z.strictObject({
  /** Short name, printed first. */
  name: z.string().min(1).max(100),
  /** What the traffic is and assumes. */
  description: z.string().optional(),
  /** The seed of every draw: the same seed, the same figures. */
  seed: z.number().int(),
  /** Starts in all, people's and bots'. */
  starts: z.number().int().min(1).max(100_000_000),
  /** Over how many days the starts spread. */
  days: z.number().int().min(1).max(365).default(1),
  /** 24 weights: how the people's starts spread over the hours of a day. */
  hourly: z.array(z.number().nonnegative()).length(24, { error: 'must list 24 weights, one per hour' }),
  /** Real people. */
  people: z.strictObject({
    /** Prefixes of people's numbers, each filled up to `digits` digits after the `+` at random. */
    prefixes: z.array(prefix).min(1),
    /** Digits of a whole number after the `+` (13 for Nigeria). */
    digits: z.number().int().min(8).max(15),
    /** Share of people who verify, and how long after the send. */
    verify: share,
    /** Seconds from the send to the verification (a number, or `{ median, p95 }`). */
    verifyAfter: duration,
    /** Share of the others who ask for a second code, and when. */
    resend: share.default(0),
    /** Seconds from the send to the second code. */
    resendAfter: duration.default(60),
  }),
  /** Pumping bots; absent: none. */
  attackers: z
    .strictObject({
      /** Share of the starts that are bots', around the clock. */
      share,
      /** The rented ranges: each bot number is one of these with its last digits at random. */
      prefixes: z.array(prefix).min(1),
      /** Digits of a whole number after the `+`. */
      digits: z.number().int().min(8).max(15),
      /** Resends per flow, one every `resendEvery` seconds. */
      resends: z.number().int().min(0).max(20).default(4),
      /** Seconds between resends. */
      resendEvery: z.number().positive().default(30),
    })
    .optional(),
  /** The price of one code message (one channel, one provider). */
  price: z.strictObject({
    /** ISO 4217, such as NGN. */
    currency: z.string().regex(/^[A-Z]{3}$/),
    /** One SMS code message. */
    sms: z.number().nonnegative(),
  }),
  /** The guard as the engine takes it (`createVerikit({ guard })`): the configuration under test. */
  guard: z.record(z.string(), z.unknown()).default({}),
});

/** A traffic scenario, checked. */
export type TrafficScenario = z.infer<typeof trafficScenarioSchema>;
