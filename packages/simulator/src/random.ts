/**
 * Seeded randomness: every draw of a run comes from a stream named by the scenario's seed and what it is for
 * (a person, the carrier's handling of that person's messages), so that a run is the same byte for byte for
 * the same seed, and two plans run on one seed meet the same people with the same phones (common random
 * numbers: a difference in the table is the plan's, not the dice's).
 */

/** A stream of numbers in [0, 1). */
export interface Random {
  /** The next number in [0, 1). */
  next(): number;
}

/** Mixes 32-bit words into one (a murmur3 finaliser over each), to name a stream. */
function mix(words: readonly number[]): number {
  let hash = 0x9e3779b9;
  for (const word of words) {
    hash = Math.imul(hash ^ (word >>> 0), 0x85ebca6b);
    hash ^= hash >>> 13;
    hash = Math.imul(hash, 0xc2b2ae35);
    hash ^= hash >>> 16;
  }
  return hash >>> 0;
}

/** A stream for `seed` and the names that follow it (mulberry32: small, fast, and good enough for a model). */
export function randomStream(seed: number, ...names: readonly number[]): Random {
  let state = mix([seed, ...names]);
  return {
    next() {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
  };
}

/** True with probability `p`. */
export function chance(random: Random, p: number): boolean {
  return random.next() < p;
}

/** A whole number in [0, n). */
export function below(random: Random, n: number): number {
  return Math.floor(random.next() * n);
}

/** A standard normal draw (Box-Muller). */
function normal(random: Random): number {
  const u = 1 - random.next();
  const v = random.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** A duration in seconds: fixed, or log-normal through its median and 95th percentile. */
export type Duration = number | { readonly median: number; readonly p95: number };

/** The 95th percentile of the standard normal. */
const z95 = 1.6448536269514722;

/** A draw of a duration, in seconds. */
export function drawSeconds(random: Random, duration: Duration): number {
  if (typeof duration === 'number') return duration;
  const sigma = duration.p95 > duration.median ? Math.log(duration.p95 / duration.median) / z95 : 0;
  return duration.median * Math.exp(sigma * normal(random));
}

/** Picks an index with the given weights (not all zero). */
export function pickWeighted(random: Random, weights: readonly number[]): number {
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  let point = random.next() * total;
  for (let index = 0; index < weights.length; index += 1) {
    point -= weights[index]!;
    if (point < 0) return index;
  }
  return weights.length - 1;
}
