import { describe, expect, it } from 'vitest';
import { nextRetryDelayMs, retryAfterMs } from './retry-after.js';

const now = Date.UTC(2031, 9, 21, 7, 28, 0);

describe('retryAfterMs', () => {
  it('reads delay-seconds', () => {
    expect(retryAfterMs('0', now)).toBe(0);
    expect(retryAfterMs('15', now)).toBe(15_000);
    expect(retryAfterMs(' 2 ', now)).toBe(2000);
  });

  it('reads an HTTP date, counted from now; a past date asks for no wait', () => {
    expect(retryAfterMs('Tue, 21 Oct 2031 07:28:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('Tuesday, 21-Oct-31 07:29:00 GMT', now)).toBe(60_000);
    expect(retryAfterMs('Tue, 21 Oct 2031 07:27:00 GMT', now)).toBe(0);
  });

  it('ignores what is absent, negative, fractional, huge or not a date', () => {
    for (const header of [
      null,
      undefined,
      '',
      '   ',
      '-1',
      '1.5',
      '12345678901',
      'soon',
      '2031-10-21T07:28:30Z',
      '1e3',
    ]) {
      expect(retryAfterMs(header, now), String(header)).toBeUndefined();
    }
  });
});

describe('nextRetryDelayMs', () => {
  it('takes the schedule without Retry-After, the longer of the two with one, capped at the maximum', () => {
    expect(nextRetryDelayMs(1000, undefined, 60_000)).toBe(1000);
    expect(nextRetryDelayMs(1000, 15_000, 60_000)).toBe(15_000);
    expect(nextRetryDelayMs(25_000, 15_000, 60_000)).toBe(25_000);
    expect(nextRetryDelayMs(1000, 3_600_000, 60_000)).toBe(60_000);
    expect(nextRetryDelayMs(1000, 15_000, 0)).toBe(1000);
  });
});
