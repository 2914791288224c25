/** Shared by the HTTP provider benches: one round trip, its measurement over a round, and medians. */

/** One provider round trip (send + check), numbered so each uses its own phone number. */
export type RoundTrip = (index: number) => Promise<void>;

/** Round trips per second and this process's CPU per round trip. */
export interface Measurement {
  rate: number;
  cpuMicrosPerTrip: number;
}

/** Runs `roundTrip` with `concurrency` in flight for `roundMs`. */
export async function measure(
  roundTrip: RoundTrip,
  concurrency: number,
  offset: { next: number },
  roundMs: number,
): Promise<Measurement> {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = started + roundMs;
  let trips = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        await roundTrip(offset.next++);
        trips += 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  return { rate: trips / seconds, cpuMicrosPerTrip: (cpu.user + cpu.system) / trips };
}

/** The median of a non-empty list. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Compares a provider's round trips with bare fetch at one concurrency: a warm-up of each, then `rounds`
 * alternating rounds (so machine noise hits both alike), and prints medians, client CPU and the cost ratio, which it
 * returns (bare rate / subject rate: below 1.0 the subject is faster than bare fetch).
 */
export async function compareWithBare(
  label: string,
  subject: RoundTrip,
  bare: RoundTrip,
  options: { concurrency: number; rounds: number; roundMs: number; offset: { next: number } },
): Promise<number> {
  const { concurrency, rounds, roundMs, offset } = options;
  await measure(subject, concurrency, offset, roundMs);
  await measure(bare, concurrency, offset, roundMs);
  const subjectRuns: Measurement[] = [];
  const bareRuns: Measurement[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const s = await measure(subject, concurrency, offset, roundMs);
    const b = await measure(bare, concurrency, offset, roundMs);
    subjectRuns.push(s);
    bareRuns.push(b);
    ratios.push(b.rate / s.rate);
  }
  const rate = (runs: Measurement[]) =>
    Math.round(median(runs.map((each) => each.rate)))
      .toLocaleString('en-US')
      .padStart(7);
  const cpu = (runs: Measurement[]) => median(runs.map((each) => each.cpuMicrosPerTrip));
  console.log(`${label}, concurrency ${concurrency}`);
  console.log(
    `  ${`${label} provider (ky)`.padEnd(22)} ${rate(subjectRuns)} round trips/s   client CPU ${Math.round(cpu(subjectRuns))} µs/trip`,
  );
  console.log(
    `  ${'bare fetch'.padEnd(22)} ${rate(bareRuns)} round trips/s   client CPU ${Math.round(cpu(bareRuns))} µs/trip`,
  );
  console.log(
    `  cost ratio bare / provider rate ${median(ratios).toFixed(2)}x (median of per-round ratios; goal < 1.0: faster than bare fetch)` +
      `   client CPU ratio ${(cpu(subjectRuns) / cpu(bareRuns)).toFixed(2)}x`,
  );
  return median(ratios);
}
