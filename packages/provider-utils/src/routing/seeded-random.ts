/**
 * A seeded source of numbers in [0, 1) (sfc32, seeded through splitmix32): the same seed gives the same draws, so a
 * router's choices can be replayed. Not for secrets.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  const split = () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = split();
  let b = split();
  let c = split();
  let d = split();
  return () => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) >>> 0;
    return t / 4294967296;
  };
}

/** A standard normal draw (Box–Muller). */
function normal(random: () => number): number {
  const u = 1 - random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** A Gamma(shape, 1) draw (Marsaglia and Tsang; shape below 1 boosted by U^(1/shape)). */
function gamma(random: () => number, shape: number): number {
  if (shape < 1) return gamma(random, shape + 1) * (1 - random()) ** (1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = normal(random);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = 1 - random();
    if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

/** A Beta(alpha, beta) draw, both above 0: the share of successes one might believe after alpha − 1 of alpha + beta − 2. */
export function betaDraw(random: () => number, alpha: number, beta: number): number {
  const x = gamma(random, alpha);
  const y = gamma(random, beta);
  return x + y === 0 ? 0.5 : x / (x + y);
}
