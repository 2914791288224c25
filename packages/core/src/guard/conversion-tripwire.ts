import { RateLimitedError, type Logger } from '@verikit/provider';
import type { SecretBox } from '../secrets/secrets.js';
import { numberFactsOf, type NumberFacts } from './number-prefix.js';
import type { TripwireSettings, TripwireTrip } from './tripwire-options.js';

/** What the tripwire read of a flow's number: its facts and the keys of its country and prefix, made once a flow. */
interface Known {
  readonly facts: NumberFacts;
  readonly keys: ReadonlyArray<readonly ['country' | 'prefix', string]>;
}

/** What the tripwire keeps of one country or prefix. */
interface Counts {
  /** Sends older than the settle window, and verifications, faded to `at`. */
  settled: number;
  verified: number;
  at: number;
  /** Sends of the two newest settle windows (`bucket` and the one before), not judged yet. */
  bucket: number;
  current: number;
  previous: number;
  /** When the running trip ends; 0: none. */
  trippedUntil: number;
}

/**
 * The upper bound of the Wilson score interval of `verified` successes in `sends` trials at `z`: the highest verified
 * share the figures leave plausible. Sound for small counts where a raw ratio is not (0 of 3 is not a share of 0).
 */
export function wilsonUpperBound(verified: number, sends: number, z: number): number {
  if (sends <= 0) return 1;
  const share = Math.min(1, verified / sends);
  const z2 = z * z;
  const centre = share + z2 / (2 * sends);
  const spread = z * Math.sqrt((share * (1 - share)) / sends + z2 / (4 * sends * sends));
  return Math.min(1, (centre + spread) / (1 + z2 / sends));
}

/**
 * The conversion tripwire: counts sends and verifications per country and per number prefix, and refuses new sends
 * where, with confidence, almost nobody verifies (docs/abuse.md, "The conversion tripwire"). Sends are judged once
 * they settled (`settleMs`: the time a person needs to read and type), counts fade (`halfLifeMs`), a trip lasts
 * `tripMs` and is logged (`verikit.guard.tripped`) and told (`onTrip`). In this process's memory, which never holds a
 * number: its counts are by country and prefix, and what it read of a number is kept by the flow's id (decision 2040).
 */
export class ConversionTripwire {
  readonly #settings: TripwireSettings;
  readonly #secrets: SecretBox;
  readonly #logger: Logger;
  readonly #counts = new Map<string, Counts>();
  /** By flow id: a flow's number is read once for its checks, its sends and its verification. */
  readonly #known = new Map<string, Known>();
  readonly #fade: number;
  readonly #read: (phoneNumber: string, flowId: string | undefined) => NumberFacts;

  /**
   * `deps.factsOf`: the send guard's own reading of a number, when at the tripwire's `digits`: a number is then parsed
   * once for both.
   */
  constructor(
    settings: TripwireSettings,
    deps: {
      secrets: SecretBox;
      logger: Logger;
      factsOf?: ((phoneNumber: string, flowId: string | undefined) => NumberFacts) | undefined;
    },
  ) {
    this.#settings = settings;
    this.#secrets = deps.secrets;
    this.#logger = deps.logger;
    this.#fade = Math.LN2 / settings.halfLifeMs;
    this.#read = deps.factsOf ?? ((phoneNumber) => numberFactsOf(phoneNumber, settings.digits));
  }

  /**
   * Throws a `RateLimitedError` when sends to `phoneNumber`'s country or prefix are paused by a trip. `flowId`: the
   * flow the send is for (here and below), under which what was read of its number is kept; undefined: kept nowhere.
   */
  admit(phoneNumber: string, flowId: string | undefined, now: number): void {
    const known = this.#knownOf(phoneNumber, flowId);
    if (known === undefined) return;
    const { facts } = known;
    for (const [dimension, key] of known.keys) {
      const counts = this.#counts.get(key);
      if (counts === undefined) continue;
      this.#roll(counts, now);
      if (counts.trippedUntil > now) {
        if (this.#settings.mode === 'shadow') continue;
        this.#refuse(dimension, counts.trippedUntil, now);
      }
      if (this.#judge(dimension, key, counts, facts, now) && this.#settings.mode === 'refuse')
        this.#refuse(dimension, counts.trippedUntil, now);
    }
  }

  /** Counts one send that went out. */
  sent(phoneNumber: string, flowId: string | undefined, now: number): void {
    const known = this.#knownOf(phoneNumber, flowId);
    if (known === undefined) return;
    for (const [, key] of known.keys) {
      let counts = this.#counts.get(key);
      if (counts === undefined) {
        const bucket = Math.floor(now / Math.max(1, this.#settings.settleMs));
        counts = { settled: 0, verified: 0, at: now, bucket, current: 0, previous: 0, trippedUntil: 0 };
        this.#counts.set(key, counts);
      } else this.#roll(counts, now);
      counts.current += 1;
    }
  }

  /** Counts one verification of a number sent to. */
  verified(phoneNumber: string, flowId: string | undefined, now: number): void {
    const known = this.#knownOf(phoneNumber, flowId);
    if (known === undefined) return;
    for (const [, key] of known.keys) {
      const counts = this.#counts.get(key);
      if (counts === undefined) continue;
      this.#roll(counts, now);
      counts.verified += 1;
    }
  }

  /**
   * The number's facts at the tripwire's digits and its keys, kept by `flowId` (never by the number: decision 2040);
   * undefined for a number the allow-list names.
   */
  #knownOf(phoneNumber: string, flowId: string | undefined): Known | undefined {
    let known = flowId === undefined ? undefined : this.#known.get(flowId);
    if (known === undefined) {
      if (this.#settings.allow.some((prefix) => phoneNumber.startsWith(prefix))) return undefined;
      const facts = this.#read(phoneNumber, flowId);
      known = {
        facts,
        keys: [
          ['country', `c:${facts.country ?? '?'}`],
          ['prefix', `p:${facts.prefix}`],
        ],
      };
      if (flowId === undefined) return known;
      if (this.#known.size >= 4096) this.#known.clear();
      this.#known.set(flowId, known);
    }
    return known;
  }

  /** Fades the settled counts to `now` and settles the sends older than the two newest windows. */
  #roll(counts: Counts, now: number): void {
    if (now > counts.at) {
      const kept = Math.exp(-this.#fade * (now - counts.at));
      counts.settled *= kept;
      counts.verified *= kept;
      counts.at = now;
    }
    const bucket = Math.floor(now / Math.max(1, this.#settings.settleMs));
    const passed = bucket - counts.bucket;
    if (passed <= 0) return;
    if (passed === 1) {
      counts.settled += counts.previous;
      counts.previous = counts.current;
    } else {
      counts.settled += counts.previous + counts.current;
      counts.previous = 0;
    }
    counts.current = 0;
    counts.bucket = bucket;
  }

  /** Trips `counts` when its figures say so; true when a trip started. */
  #judge(dimension: 'country' | 'prefix', key: string, counts: Counts, facts: NumberFacts, now: number): boolean {
    const { minSends, minVerifiedShare, confidence, tripMs, mode } = this.#settings;
    if (counts.trippedUntil > now || counts.settled < minSends) return false;
    const upperBound = wilsonUpperBound(counts.verified, counts.settled, confidence);
    if (upperBound >= minVerifiedShare) return false;
    counts.trippedUntil = now + tripMs;
    const trip: TripwireTrip = {
      dimension,
      key: dimension === 'country' ? (facts.country ?? '?') : this.#secrets.hash('guard:tripwire', key),
      country: facts.country,
      sends: Math.round(counts.settled * 100) / 100,
      verified: Math.round(Math.min(counts.verified, counts.settled) * 100) / 100,
      upperBound: Math.round(upperBound * 10_000) / 10_000,
      until: counts.trippedUntil,
      shadow: mode === 'shadow',
    };
    this.#logger.warn('verikit.guard.tripped', { ...trip });
    try {
      this.#settings.onTrip?.(trip);
    } catch (error) {
      this.#logger.error('verikit.guard.trip_listener_failed', {
        error: error instanceof Error ? error.name : 'error',
      });
    }
    return true;
  }

  #refuse(dimension: 'country' | 'prefix', until: number, now: number): never {
    const retryAfterMs = Math.max(0, until - now);
    this.#logger.warn('verikit.guard.refused', { limit: 'tripwire', dimension, retryAfterMs });
    throw new RateLimitedError(
      `sends to this ${dimension === 'country' ? 'country' : 'number range'} are paused: almost none of its recent codes were used`,
      until,
      { retryAfterMs },
    );
  }
}
