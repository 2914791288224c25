import { describe, expect, it } from 'vitest';
import { ServerClock } from './server-clock.js';

function answer(date: string | undefined): Response {
  return new Response(null, { status: 204, headers: date === undefined ? {} : { date } });
}

describe('ServerClock', () => {
  it('keeps the local clock while the Date header agrees with it (to the second)', () => {
    const clock = new ServerClock();
    const local = Date.UTC(2026, 0, 1, 12, 0, 0, 400);
    expect(clock.observeResponse(answer(new Date(local).toUTCString()), local - 20, local + 20)).toBe(false);
    expect(clock.offsetMs).toBe(0);
    expect(clock.toLocal(local + 30_000)).toBe(local + 30_000);
  });

  it('moves to the nearest offset the Date header allows when the clocks disagree', () => {
    const clock = new ServerClock();
    const local = Date.UTC(2026, 0, 1, 12, 0, 0, 0);
    const server = local + 3_600_000;
    expect(clock.observeResponse(answer(new Date(server).toUTCString()), local, local + 100)).toBe(true);
    // The server read between server and server + 999 while local read between local and local + 100.
    expect(clock.offsetMs).toBeGreaterThanOrEqual(3_600_000 - 100);
    expect(clock.offsetMs).toBeLessThanOrEqual(3_600_000 + 999);
  });

  it('narrows the estimate with a serverTime, exact to the round trip', () => {
    const clock = new ServerClock();
    const local = 1_000_000;
    clock.observeResponse(answer(new Date(local - 60_000).toUTCString()), local, local + 10);
    clock.observeServerTime(local - 60_000 + 500, local, local + 10);
    expect(clock.offsetMs).toBeGreaterThanOrEqual(-60_000 + 490);
    expect(clock.offsetMs).toBeLessThanOrEqual(-60_000 + 500);
  });

  it('a pushed serverTime (send time unknown) only bounds the offset from below', () => {
    const clock = new ServerClock();
    clock.observeServerTime(5_000, -Infinity, 1_000);
    expect(clock.offsetMs).toBe(4_000);
    clock.observeServerTime(4_000, -Infinity, 2_000);
    expect(clock.offsetMs).toBe(4_000);
  });

  it('starts anew when a sample contradicts the others (a clock was set)', () => {
    const clock = new ServerClock();
    clock.observe(10_000, 10_000, 0, 10);
    expect(clock.offsetMs).toBeGreaterThanOrEqual(9_990);
    clock.observe(100_000, 100_000, 20, 30);
    expect(clock.offsetMs).toBeGreaterThanOrEqual(99_970);
    expect(clock.offsetMs).toBeLessThanOrEqual(99_980);
  });

  it('ignores what is not a time: no header, a malformed date, NaN, an inverted interval', () => {
    const clock = new ServerClock();
    expect(clock.observeResponse(answer(undefined), 0, 1)).toBe(false);
    expect(clock.observeResponse(answer('yesterday-ish'), 0, 1)).toBe(false);
    expect(clock.observe(Number.NaN, 5, 0, 1)).toBe(false);
    expect(clock.observe(5, 5, 10, 1)).toBe(false);
    expect(clock.observeServerTime(undefined, 0, 1)).toBe(false);
    expect(clock.offsetMs).toBe(0);
  });

  it('is answered from the first answer on, with or without a time in it; listeners hear that once, then each change', () => {
    const clock = new ServerClock();
    let heard = 0;
    clock.onChange(() => {
      heard += 1;
    });
    expect(clock.answered).toBe(false);
    expect(clock.observeResponse(answer(undefined), 0, 1)).toBe(false);
    expect([clock.answered, heard, clock.offsetMs]).toEqual([true, 1, 0]);
    clock.observeResponse(answer(undefined), 2, 3);
    expect(heard).toBe(1);
    clock.observe(10_000, 10_000, 0, 10);
    expect(heard).toBe(2);
  });
});
