import { RateLimitedError } from '@verikit/provider';
import type { Verikit } from '../engine/create-verikit.js';
import type { StartInput } from '../inputs/inputs.js';

/** Test-only fixtures of the send guard's tests. */

/** `count` consecutive valid Nigerian mobile numbers from `first` (a 13-character E.164 number). */
export function consecutiveNumbers(first: string, count: number): string[] {
  const start = Number(first.slice(1));
  return Array.from({ length: count }, (_, index) => `+${start + index}`);
}

/** The outcome of many starts at once: how many were admitted, and the refusals, by error code. */
export interface Burst {
  readonly admitted: string[];
  readonly refused: RateLimitedError[];
  readonly other: unknown[];
}

/** Starts a phone flow to every number at once (as one client, or none) and sorts the outcomes. */
export async function burst(
  verikit: Verikit,
  numbers: readonly string[],
  client?: string | ((index: number) => string),
): Promise<Burst> {
  const result: Burst = { admitted: [], refused: [], other: [] };
  await Promise.all(
    numbers.map(async (phoneNumber, index) => {
      const input: StartInput = { kind: 'phone', phoneNumber };
      const who = typeof client === 'function' ? client(index) : client;
      try {
        await verikit.start(input, who === undefined ? undefined : { client: who });
        result.admitted.push(phoneNumber);
      } catch (error) {
        if (RateLimitedError.isInstance(error)) result.refused.push(error);
        else result.other.push(error);
      }
    }),
  );
  return result;
}
