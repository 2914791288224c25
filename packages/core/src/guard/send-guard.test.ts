import { describe, expect, it } from 'vitest';
import { InvalidInputError, RateLimitedError, type VerikitError } from '@verikit/provider';
import { setup } from '../engine/engine.fixtures.js';
import { StoreError } from '../errors/store-error.js';
import { defaultGuardLimits } from './guard-options.js';
import { burst, consecutiveNumbers } from './send-guard.fixtures.js';
import { memorySendGuardStore, type SendGuardStore } from '../store/send-guard-store.js';

/** 300 consecutive valid numbers inside one block of 1,000 (`+234 8012340 000`–`299`). */
const numbers = consecutiveNumbers('+2348012340000', 300);

/** The national digits of a number: what no log line, key or refusal may carry. */
const nationalDigits = (phoneNumber: string) => phoneNumber.slice(4);

describe('the send guard cuts 300 starts to 300 consecutive numbers at the configured limit (one process)', () => {
  it('per client: exactly `points` sends; the refused starts sent and stored nothing', async () => {
    const { verikit, provider, raw, keyv } = setup({
      guard: { perClient: { points: 20 }, perPrefix: false, global: false },
    });
    const result = await burst(verikit, numbers, 'attacker');
    expect(result.other).toEqual([]);
    expect(result.admitted).toHaveLength(20);
    expect(result.refused).toHaveLength(280);
    expect(provider.callsOf('phone.send')).toHaveLength(20);
    expect(new Set(provider.callsOf('phone.send').map((call) => call.input.phoneNumber))).toEqual(
      new Set(result.admitted),
    );
    // Nothing of a refused start is in the store: no flow, no unit of its number's own limit.
    const stored = raw();
    const refusedNumbers = numbers.filter((phoneNumber) => !result.admitted.includes(phoneNumber));
    for (const phoneNumber of refusedNumbers) expect(stored).not.toContain(nationalDigits(phoneNumber));
    const flowKeys = [...(keyv.store as Map<string, unknown>).keys()].filter((key) => key.includes('flow:'));
    expect(flowKeys).toHaveLength(20);
    for (const refusal of result.refused) {
      expect(refusal.retryAfterMs).toBeGreaterThan(0);
      expect(refusal.retryAfterMs).toBeLessThanOrEqual(defaultGuardLimits.perClient.windowMs);
      expect(refusal.message).not.toContain('attacker');
    }
    // Another client is not held back by the first one's limit.
    await expect(
      verikit.start({ kind: 'phone', phoneNumber: '+2348099990000' }, { client: 'someone-else' }),
    ).resolves.toMatchObject({
      status: 'awaiting-code',
    });
  });

  it('per number prefix: exactly `points` sends to one block, whoever asks; another block is not held back', async () => {
    const { verikit, provider } = setup({ guard: { perClient: false, perPrefix: { points: 15 }, global: false } });
    const result = await burst(verikit, numbers, (index) => `client-${index}`);
    expect(result.admitted).toHaveLength(15);
    expect(result.refused).toHaveLength(285);
    expect(provider.callsOf('phone.send')).toHaveLength(15);
    await expect(verikit.start({ kind: 'phone', phoneNumber: '+2348012350000' })).resolves.toMatchObject({
      status: 'awaiting-code',
    });
  });

  it('the prefix is `digits` national digits: with 9, every block of 10 numbers has its own count', async () => {
    const { verikit, provider } = setup({
      guard: { perClient: false, perPrefix: { points: 2, digits: 9 }, global: false },
    });
    const result = await burst(verikit, numbers);
    // 30 blocks of 10 numbers (8012340 00x … 8012340 29x), 2 sends each. 9 digits of a 10-digit
    // national number would leave one digit out: the prefix keeps at most all but three, so 7.
    expect(result.admitted).toHaveLength(2);
    expect(provider.callsOf('phone.send')).toHaveLength(2);
  });

  it('global: exactly `points` sends across every client and prefix', async () => {
    const { verikit, provider } = setup({ guard: { perClient: false, perPrefix: false, global: { points: 25 } } });
    const spread = Array.from(
      { length: 300 },
      (_, index) => `+23480${String(10_000_000 + index * 3_331).padStart(8, '0')}`,
    );
    const result = await burst(verikit, spread, (index) => `client-${index}`);
    expect(result.other).toEqual([]);
    expect(result.admitted).toHaveLength(25);
    expect(provider.callsOf('phone.send')).toHaveLength(25);
  });

  it('with the defaults: one client gets 10 sends, and no client at all gets 10 into one block of numbers', async () => {
    const asClient = setup();
    expect((await burst(asClient.verikit, numbers, '203.0.113.7')).admitted).toHaveLength(
      defaultGuardLimits.perClient.points,
    );
    expect(asClient.provider.callsOf('phone.send')).toHaveLength(10);
    const anonymous = setup();
    expect((await burst(anonymous.verikit, numbers)).admitted).toHaveLength(defaultGuardLimits.perPrefix.points);
    expect(anonymous.provider.callsOf('phone.send')).toHaveLength(10);
  });

  it('`guard: false` leaves only the per-number limit: all 300 are sent', async () => {
    const { verikit, provider } = setup({ guard: false });
    expect((await burst(verikit, numbers, 'attacker')).admitted).toHaveLength(300);
    expect(provider.callsOf('phone.send')).toHaveLength(300);
  });
});

describe('the send guard on resends, identity flows and its answers', () => {
  it('a resend passes the guard for its client: refused at the limit, nothing sent, the flow unchanged', async () => {
    const { verikit, provider } = setup({
      guard: { perClient: { points: 2 }, perPrefix: false, global: false },
      policies: { resendCooldownMs: 0 },
    });
    const flow = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345678' }, { client: 'c1' });
    await verikit.send(flow.id, { type: 'resend' }, { client: 'c1' });
    const before = await verikit.get(flow.id);
    const refused = await verikit.send(flow.id, { type: 'resend' }, { client: 'c1' }).catch((error: unknown) => error);
    expect(RateLimitedError.isInstance(refused)).toBe(true);
    expect(provider.callsOf('phone.send')).toHaveLength(2);
    expect(await verikit.get(flow.id)).toEqual(before);
  });

  it('a resend without a client still counts against its number prefix and the global budget', async () => {
    const { verikit, provider } = setup({
      guard: { perClient: false, perPrefix: false, global: { points: 2 } },
      policies: { resendCooldownMs: 0 },
    });
    const flow = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345678' });
    await verikit.send(flow.id, { type: 'resend' });
    await expect(verikit.send(flow.id, { type: 'resend' })).rejects.toSatisfy(RateLimitedError.isInstance);
    expect(provider.callsOf('phone.send')).toHaveLength(2);
  });

  it('identity flows count per client and globally (no number to read a country or prefix from)', async () => {
    const { verikit, provider } = setup({ guard: { perClient: { points: 1 }, countries: ['GH'] } });
    await verikit.start({ kind: 'identity', idType: 'bvn', number: '22212345678' }, { client: 'c1' });
    await expect(
      verikit.start({ kind: 'identity', idType: 'nin', number: '22212345679' }, { client: 'c1' }),
    ).rejects.toSatisfy(RateLimitedError.isInstance);
    expect(provider.callsOf('identity.sendOtp')).toHaveLength(1);
  });

  it('a refusal by a later limit gives back the units the earlier ones took', async () => {
    const { verikit } = setup({ guard: { perClient: { points: 3 }, perPrefix: { points: 2 }, global: false } });
    const inBlock = consecutiveNumbers('+2348012340000', 3);
    await burst(verikit, inBlock.slice(0, 2), 'c1');
    await expect(verikit.start({ kind: 'phone', phoneNumber: inBlock[2]! }, { client: 'c1' })).rejects.toThrow(
      /per-prefix/,
    );
    // The per-prefix refusal took nothing of c1's 3: one more start in another block is admitted.
    await verikit.start({ kind: 'phone', phoneNumber: '+2348012350000' }, { client: 'c1' });
    await expect(verikit.start({ kind: 'phone', phoneNumber: '+2348012360000' }, { client: 'c1' })).rejects.toThrow(
      /per-client/,
    );
  });

  it('ten presses on one number (5 sent, 5 refused by its own limit) leave the rest of its prefix free', async () => {
    // Issue 16: the refused presses used to hold units of the prefix (and the global budget) for an hour.
    const { verikit, provider } = setup({ guard: { perPrefix: { points: 10 }, global: { points: 10 } } });
    const presses = await burst(
      verikit,
      Array.from({ length: 10 }, () => '+2348012340000'),
      'me',
    );
    expect([presses.admitted.length, presses.refused.length, presses.other]).toEqual([5, 5, []]);
    expect(presses.refused.every((error) => /for this recipient/.test(error.message))).toBe(true);
    // The prefix and the global budget hold exactly the 5 sent: 5 more numbers of the block, from elsewhere.
    const neighbours = await burst(verikit, consecutiveNumbers('+2348012340001', 6), (index) => `n${index}`);
    expect([neighbours.admitted.length, neighbours.refused.length]).toEqual([5, 1]);
    expect(provider.callsOf('phone.send')).toHaveLength(10);
  });

  it('12 starts to one number from 12 addresses (5 sent) do not lock the 1,000-number block', async () => {
    const { verikit } = setup({ guard: { perClient: { points: 1 }, perPrefix: { points: 10 } } });
    const starts = await burst(
      verikit,
      Array.from({ length: 12 }, () => '+2348012340000'),
      (index) => `a${index}`,
    );
    expect([starts.admitted.length, starts.refused.length, starts.other]).toEqual([5, 7, []]);
    // Each of the 7 refused addresses kept its own unit too: it can start for another number at once.
    const others = await burst(verikit, consecutiveNumbers('+2348012340100', 5), (index) => `a${index + 5}`);
    expect([others.admitted.length, others.refused.length]).toEqual([5, 0]);
  });

  it('20 starts refused by the per-number limit leave the client its one unit', async () => {
    const { verikit } = setup({
      guard: { perClient: { points: 1 }, perPrefix: false, global: false },
      policies: { maxSendsPerHour: 1 },
    });
    // The first press takes the number's only send; the next 20 are refused by the per-number limit and give back
    // the client's unit each time, so the client still has it for another number.
    await verikit.start({ kind: 'phone', phoneNumber: '+2348012340000' });
    const refused = await burst(
      verikit,
      Array.from({ length: 20 }, () => '+2348012340000'),
      'c1',
    );
    expect(refused.refused).toHaveLength(20);
    await verikit.start({ kind: 'phone', phoneNumber: '+2348012340001' }, { client: 'c1' });
  });

  it('retryAt is on the engine clock, retryAfterMs is the wait; the refusal is logged by limit, never with the number or client', async () => {
    const { verikit, clock, logs } = setup({ guard: { perClient: { points: 1, windowMs: 60_000 } } });
    await verikit.start({ kind: 'phone', phoneNumber: '+2348012345678' }, { client: '198.51.100.23' });
    const refused = (await verikit
      .start({ kind: 'phone', phoneNumber: '+2348012345679' }, { client: '198.51.100.23' })
      .catch((error: unknown) => error)) as RateLimitedError;
    expect(RateLimitedError.isInstance(refused)).toBe(true);
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(refused.retryAt).toBe(clock.now() + refused.retryAfterMs);
    expect(refused.isRetryable).toBe(true);
    const refusals = logs.filter((line) => line.message === 'verikit.guard.refused');
    expect(refusals).toEqual([
      {
        level: 'warn',
        message: 'verikit.guard.refused',
        fields: { limit: 'per-client', retryAfterMs: refused.retryAfterMs },
      },
    ]);
    const logged = JSON.stringify(logs);
    expect(logged).not.toContain('8012345679');
    expect(logged).not.toContain('198.51.100.23');
  });
});

describe('the country allow-list', () => {
  it('a number of a country not listed is an InvalidInputError naming phoneNumber: nothing sent or stored', async () => {
    const { verikit, provider, raw, logs } = setup({ guard: { countries: ['GH'] } });
    const before = raw();
    const refused = await verikit
      .start({ kind: 'phone', phoneNumber: '+2348012345678' })
      .catch((error: unknown) => error);
    expect(InvalidInputError.isInstance(refused)).toBe(true);
    expect((refused as InvalidInputError).field).toBe('phoneNumber');
    expect((refused as Error).message).not.toContain('8012345678');
    expect(raw()).toBe(before);
    expect(provider.calls).toHaveLength(0);
    expect(logs.filter((line) => line.message === 'verikit.guard.refused')).toEqual([
      { level: 'warn', message: 'verikit.guard.refused', fields: { limit: 'country' } },
    ]);
    await expect(verikit.start({ kind: 'ussd', phoneNumber: '+233201234567' })).resolves.toMatchObject({
      kind: 'ussd',
    });
  });

  it('by default every country is allowed, and numbers of no country (+800, +882) are refused', async () => {
    const { verikit, provider } = setup();
    for (const phoneNumber of ['+2348012345678', '+233201234567', '+12133734253', '+447911123456'])
      await verikit.start({ kind: 'phone', phoneNumber });
    for (const phoneNumber of ['+80012345678', '+88213901234']) {
      await expect(verikit.start({ kind: 'phone', phoneNumber })).rejects.toMatchObject({
        code: 'invalid_input',
        field: 'phoneNumber',
      });
    }
    expect(provider.callsOf('phone.send')).toHaveLength(4);
  });
});

describe('hostile input to the guard options and the call options: a typed error naming the option', () => {
  it.each<[string, unknown, string]>([
    ['not an object', 'strict', 'guard'],
    ['null', null, 'guard'],
    ['an unknown field', { perIp: { points: 1 } }, 'guard'],
    ['a limit that is a string', { perClient: 'x' }, 'guard.perClient'],
    ['no points', { perClient: { points: 0 } }, 'guard.perClient.points'],
    ['fractional points', { global: { points: 1.5 } }, 'guard.global.points'],
    ['infinite points', { global: { points: Number.POSITIVE_INFINITY } }, 'guard.global.points'],
    ['a window under a second', { perPrefix: { windowMs: 999 } }, 'guard.perPrefix.windowMs'],
    ['a window of a year', { perPrefix: { windowMs: 365 * 24 * 3_600_000 } }, 'guard.perPrefix.windowMs'],
    ['no prefix digits', { perPrefix: { digits: 0 } }, 'guard.perPrefix.digits'],
    ['a NaN of digits', { perPrefix: { digits: Number.NaN } }, 'guard.perPrefix.digits'],
    ['an unknown country', { countries: ['XX'] }, 'guard.countries.0'],
    ['a lower-case country', { countries: ['ng'] }, 'guard.countries.0'],
    ['no countries', { countries: [] }, 'guard.countries'],
    ['countries as a string', { countries: 'NG' }, 'guard.countries'],
    ['a store without limiter()', { store: { limiter: 1 } }, 'guard.store'],
  ])('guard with %s', (_label, guard, field) => {
    let error: unknown;
    try {
      setup({ guard: guard as never });
    } catch (caught) {
      error = caught;
    }
    expect(InvalidInputError.isInstance(error)).toBe(true);
    expect((error as InvalidInputError).field).toBe(field);
  });

  it.each<[string, unknown, string]>([
    ['a number', { client: 42 }, 'client'],
    ['an empty string', { client: '' }, 'client'],
    ['a megabyte', { client: 'x'.repeat(1024 * 1024) }, 'client'],
    ['an unknown field', { client: 'a', ip: '1.2.3.4' }, 'options'],
    ['a string instead of options', '203.0.113.7', 'options'],
    ['null', null, 'options'],
  ])('start and send with a client %s: nothing sent or stored', async (_label, options, field) => {
    const { verikit, provider, raw } = setup();
    const flow = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345678' });
    const before = raw();
    for (const call of [
      () => verikit.start({ kind: 'phone', phoneNumber: '+2348012345679' }, options as never),
      () => verikit.send(flow.id, { type: 'resend' }, options as never),
    ]) {
      const error = await Promise.resolve()
        .then(call)
        .catch((caught: unknown) => caught);
      expect(InvalidInputError.isInstance(error)).toBe(true);
      expect((error as InvalidInputError).field).toBe(field);
      expect(JSON.stringify(error)).not.toContain('xxxxxxxx');
    }
    expect(raw()).toBe(before);
    expect(provider.calls).toHaveLength(1);
  });
});

describe('the guard store', () => {
  it('a refused consume takes nothing: one unit given back after 3 refusals is one unit available', async () => {
    const limiter = memorySendGuardStore().limiter({
      name: 'global',
      keyPrefix: 'guard:global',
      points: 1,
      durationSeconds: 60,
    });
    await limiter.consume('all', 1);
    for (let refusal = 0; refusal < 3; refusal += 1) await expect(limiter.consume('all', 1)).rejects.toBeDefined();
    await limiter.reward('all', 1);
    await limiter.consume('all', 1);
  });

  it('a backend that fails is a retryable StoreError with none of its message; nothing sent or stored', async () => {
    const failing: SendGuardStore = {
      limiter: () => ({
        consume: () => Promise.reject(new Error('ECONNREFUSED redis://:hunter2@10.0.0.1:6379')),
        reward: () => Promise.reject(new Error('down')),
      }),
    };
    const { verikit, provider, raw } = setup({ guard: { store: failing } });
    const before = raw();
    const error = await verikit
      .start({ kind: 'phone', phoneNumber: '+2348012345678' }, { client: 'c1' })
      .catch((caught: unknown) => caught);
    expect(StoreError.isInstance(error)).toBe(true);
    expect((error as VerikitError).isRetryable).toBe(true);
    expect(
      JSON.stringify({ error, message: (error as Error).message, cause: String((error as Error).cause) }),
    ).not.toContain('hunter2');
    expect(raw()).toBe(before);
    expect(provider.calls).toHaveLength(0);
  });

  it('the engine counts where its options say, and in the flow store when it offers a guard store', async () => {
    const shared = memorySendGuardStore();
    const first = setup({ guard: { perClient: { points: 2 }, store: shared } });
    const second = setup({ guard: { perClient: { points: 2 }, store: shared } });
    await first.verikit.start({ kind: 'phone', phoneNumber: '+2348012345678' }, { client: 'c1' });
    await second.verikit.start({ kind: 'phone', phoneNumber: '+2348022345678' }, { client: 'c1' });
    await expect(
      first.verikit.start({ kind: 'phone', phoneNumber: '+2348032345678' }, { client: 'c1' }),
    ).rejects.toSatisfy(RateLimitedError.isInstance);

    const offered = memorySendGuardStore();
    const storeSetup = setup({ guard: { perClient: { points: 1 } } });
    const { store } = storeSetup;
    // The memory store with the hook a Redis store has: its guard store.
    const withOffer = new Proxy(store, {
      get: (target, property) =>
        property === 'sendGuardStore'
          ? () => offered
          : (Reflect.get(target, property) as (...args: unknown[]) => unknown)?.bind(target),
    });
    const a = setup({ store: withOffer, guard: { perClient: { points: 1 } } });
    const b = setup({ store: withOffer, guard: { perClient: { points: 1 } } });
    await a.verikit.start({ kind: 'phone', phoneNumber: '+2348042345678' }, { client: 'c2' });
    await expect(b.verikit.start({ kind: 'phone', phoneNumber: '+2348052345678' }, { client: 'c2' })).rejects.toSatisfy(
      RateLimitedError.isInstance,
    );
  });
});
