/** Shared by the HTTP provider benches: one round trip, its measurement over a round, and medians. */

/** One provider round trip (send + check), numbered so each uses its own phone number. */
export type RoundTrip = (index: number) => Promise<void>;

/** Round trips per second and this process's CPU per round trip. */
export interface Measurement {
  rate: number;
  cpuMicrosPerTrip: number;
}

/** Runs `roundTrip` with `concurrency` in flight for `roundMs`. */
export async function measure(roundTrip: RoundTrip, concurrency: number, offset: { next: number }, roundMs: number): Promise<Measurement> {
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
