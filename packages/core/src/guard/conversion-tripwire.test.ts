import { describe, expect, it } from 'vitest';
import { InvalidInputError, RateLimitedError } from '@verikit/provider';
import { setup } from '../engine/engine.fixtures.js';
import { wilsonUpperBound } from './conversion-tripwire.js';
import type { TripwireOptions, TripwireTrip } from './tripwire-options.js';

const countsOff = { perClient: false, perPrefix: false, global: false } as const;
/** The pumped range (`+234 8031234 xxx`) and a range of real people. */
const pumped = (index: number) => `+2348031234${String(index % 1000).padStart(3, '0')}`;
const real = (index: number) => `+2348059876${String(index % 1000).padStart(3, '0')}`;

function guarded(tripwire: TripwireOptions = {}) {
  const trips: TripwireTrip[] = [];
  const context = setup({ guard: { ...countsOff, tripwire: { ...tripwire, onTrip: (trip) => trips.push(trip) } } });
  /** Starts a flow to `phoneNumber`; verifies it when `verify`; true when it was sent. */
  const start = async (phoneNumber: string, verify: boolean): Promise<boolean> => {
    try {
      const flow = await context.verikit.start({ kind: 'phone', phoneNumber });
      if (verify)
        await context.verikit.send(flow.id, { type: 'submit-code', code: context.provider.lastCode(phoneNumber)! });
      return true;
    } catch (error) {
      if (!RateLimitedError.isInstance(error)) throw error;
      return false;
    }
  };
  return { ...context, trips, start };
}

describe('wilsonUpperBound', () => {
  it('leaves a high share plausible for few sends and a low one for many', () => {
    expect(wilsonUpperBound(0, 3, 1.96)).toBeGreaterThan(0.5);
    expect(wilsonUpperBound(0, 35, 1.96)).toBeLessThan(0.1);
    expect(wilsonUpperBound(0, 34, 1.96)).toBeGreaterThan(0.1);
    expect(wilsonUpperBound(1, 20, 1.96)).toBeGreaterThan(0.1);
    expect(wilsonUpperBound(0, 0, 1.96)).toBe(1);
  });
});

describe('the conversion tripwire', () => {
  it('trips a range where nobody verifies after at most 35 settled sends, and spares a range where people do', async () => {
    const { clock, trips, start, logs } = guarded();
    let pumpedSends = 0;
    let realRefused = 0;
    for (let index = 0; index < 100; index += 1) {
      if ((await start(pumped(index), false)) && trips.length === 0) pumpedSends += 1;
      if (!(await start(real(index), index % 3 !== 0))) realRefused += 1;
      clock.advance(30_000);
    }
    // 50 minutes: one trip, still running (it lasts an hour).
    expect(trips).toHaveLength(1);
    expect(trips[0]).toMatchObject({ dimension: 'prefix', country: 'NG', verified: 0, shadow: false });
    expect(trips[0]!.key).toMatch(/^[0-9a-f]{32}$/);
    // Judged on settled sends (older than a minute or two): at most a few more than the 35 the statistic needs.
    expect(pumpedSends).toBeGreaterThanOrEqual(35);
    expect(pumpedSends).toBeLessThanOrEqual(40);
    expect(realRefused).toBe(0);
    // Explained in a log line with no number in it.
    const tripped = logs.map((line) => JSON.stringify(line)).filter((line) => line.includes('verikit.guard.tripped'));
    expect(tripped).toHaveLength(1);
    expect(tripped.join('\n')).not.toMatch(/8031234/);
  });

  it('refuses with a RateLimitedError that says when, and judges again after the trip', async () => {
    const { clock, start, verikit } = guarded({ tripMs: 600_000, minSends: 5, confidence: 0.5 });
    for (let index = 0; index < 10; index += 1) {
      await start(pumped(index), false);
      clock.advance(60_000);
    }
    const refusal = await verikit.start({ kind: 'phone', phoneNumber: pumped(99) }).catch((error: unknown) => error);
    expect(RateLimitedError.isInstance(refusal)).toBe(true);
    // Every send here is to Nigeria and none verified: the country trips with the range.
    expect((refusal as RateLimitedError).message).toMatch(
      /^sends to this (number range|country) are paused: almost none of its recent codes were used$/,
    );
    expect((refusal as RateLimitedError).retryAfterMs).toBeGreaterThan(0);
    expect((refusal as RateLimitedError).retryAfterMs).toBeLessThanOrEqual(600_000);
  });

  it('in shadow mode reports the trip and refuses nothing', async () => {
    const { clock, trips, start } = guarded({ mode: 'shadow' });
    let sent = 0;
    for (let index = 0; index < 100; index += 1) {
      if (await start(pumped(index), false)) sent += 1;
      clock.advance(30_000);
    }
    expect(sent).toBe(100);
    expect(trips.length).toBeGreaterThanOrEqual(1);
    expect(trips.every((trip) => trip.shadow)).toBe(true);
  });

  it('never judges a range on the allow-list', async () => {
    const { clock, trips, start } = guarded({ allow: ['+2348031234'] });
    for (let index = 0; index < 100; index += 1) {
      expect(await start(pumped(index), false)).toBe(true);
      clock.advance(30_000);
    }
    expect(trips).toEqual([]);
  });

  it('refuses options that are not, naming the field', () => {
    expect(() => setup({ guard: { tripwire: { minVerifiedShare: 2 } } })).toThrow(InvalidInputError);
    expect(() => setup({ guard: { tripwire: { mode: 'off' as never } } })).toThrow(/guard\.tripwire\.mode/);
    expect(() => setup({ guard: { tripwire: { allow: ['2348031'] } } })).toThrow(/guard\.tripwire\.allow\.0/);
  });
});
