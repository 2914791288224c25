import { describe, expect, it } from 'vitest';
import { setup } from '../engine/engine.fixtures.js';

const phone = '+2348012345678';

describe('flow secrets', () => {
  it('each flow has its own 256-bit secret, accepted only for that flow, and found in no log or record', async () => {
    const env = setup();
    const one = await env.verikit.start({ kind: 'phone', phoneNumber: phone });
    const two = await env.verikit.start({ kind: 'ussd', phoneNumber: '+2348012345679' });
    const secret = env.verikit.flowSecret(one.id);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(env.verikit.flowSecret(two.id)).not.toBe(secret);
    expect(env.verikit.isFlowSecret(one.id, secret)).toBe(true);
    expect(env.verikit.isFlowSecret(two.id, secret)).toBe(false);
    for (const wrong of [undefined, '', 42, `${secret}x`, secret.slice(1), secret.toLowerCase()])
      expect(env.verikit.isFlowSecret(one.id, wrong)).toBe(secret === wrong);
    const stored = JSON.stringify([...(env.keyv.store as Map<string, unknown>).entries()]);
    expect(`${stored}${JSON.stringify(env.logs)}${JSON.stringify(one)}`).not.toContain(secret);
  });
});

describe('idempotent start', () => {
  it('the same idempotency key returns the same flow and sends once; another key is a new flow, another number an error', async () => {
    const env = setup();
    const first = await env.verikit.start({ kind: 'phone', phoneNumber: phone }, { idempotencyKey: 'a' });
    const repeat = await env.verikit.start({ kind: 'phone', phoneNumber: phone }, { idempotencyKey: 'a' });
    expect(repeat.id).toBe(first.id);
    expect(env.provider.callsOf('phone.send')).toHaveLength(1);
    await expect(
      env.verikit.start({ kind: 'phone', phoneNumber: '+2348012345679' }, { idempotencyKey: 'a' }),
    ).rejects.toMatchObject({ code: 'idempotency_key_reused', mismatch: ['phoneNumber'] });
    const other = await env.verikit.start({ kind: 'phone', phoneNumber: '+2348012345679' }, { idempotencyKey: 'b' });
    expect(other.id).not.toBe(first.id);
  });

  it('a start for a number with a live flow of the same kind and owner resumes it; another owner, or a done flow, starts anew', async () => {
    const env = setup();
    const first = await env.verikit.start({ kind: 'ussd', phoneNumber: phone }, { owner: 'session-1' });
    expect((await env.verikit.start({ kind: 'ussd', phoneNumber: phone }, { owner: 'session-1' })).id).toBe(first.id);
    const stranger = await env.verikit.start({ kind: 'ussd', phoneNumber: phone }, { owner: 'session-2' });
    expect(stranger.id).not.toBe(first.id);
    await env.verikit.cancel(first.id);
    const after = await env.verikit.start({ kind: 'ussd', phoneNumber: phone }, { owner: 'session-1' });
    expect(after.id).not.toBe(first.id);
    const keys = [...(env.keyv.store as Map<string, unknown>).keys()].join('\n');
    expect(keys).not.toContain('session-1');
  });

  it('a start refused by a limit leaves its idempotency key free: a retry with it runs at once, and starts once let through', async () => {
    const env = setup({ guard: { perClient: { points: 1 }, perPrefix: false, global: false } });
    await env.verikit.start({ kind: 'phone', phoneNumber: '+2348031234567' }, { client: 'c' });
    const again = { client: 'c', idempotencyKey: 'k' };
    await expect(env.verikit.start({ kind: 'phone', phoneNumber: phone }, again)).rejects.toMatchObject({
      code: 'rate_limited',
    });
    // Refused again by the limit, not kept waiting on the key ("still under way") by the refused start.
    await expect(env.verikit.start({ kind: 'phone', phoneNumber: phone }, again)).rejects.toMatchObject({
      code: 'rate_limited',
    });
    // Let through (here: counted against a client with sends left), the same key starts the flow, once.
    const letThrough = { client: 'd', idempotencyKey: 'k' };
    const started = await env.verikit.start({ kind: 'phone', phoneNumber: phone }, letThrough);
    expect(started.status).toBe('awaiting-code');
    expect((await env.verikit.start({ kind: 'phone', phoneNumber: phone }, letThrough)).id).toBe(started.id);
    expect(env.provider.callsOf('phone.send')).toHaveLength(2);
  });

  it('a retry takes over a start that holds its key and writes nothing; that start, resumed, writes nothing (decision 1542)', async () => {
    // The first start's send guard count hangs until let go: it holds the key, between the claim and the write.
    let letGo: () => void = () => {};
    let hung = false;
    const store = {
      limiter: () => ({
        consume: async () => {
          if (hung) return undefined as never;
          hung = true;
          await new Promise<void>((resolve) => (letGo = resolve));
          return undefined as never;
        },
        reward: async () => undefined as never,
      }),
    };
    const env = setup({ guard: { store } });
    const options = { idempotencyKey: 'stuck' };
    const stuck = env.verikit.start({ kind: 'phone', phoneNumber: phone }, options);
    while (!hung) await new Promise((resolve) => setTimeout(resolve, 5));
    const retried = await env.verikit.start({ kind: 'phone', phoneNumber: phone }, options);
    expect(retried.status).toBe('awaiting-code');
    letGo();
    await expect(stuck).rejects.toMatchObject({ code: 'conflict' });
    expect(env.provider.callsOf('phone.send')).toHaveLength(1);
    expect((await env.verikit.start({ kind: 'phone', phoneNumber: phone }, options)).id).toBe(retried.id);
  });

  it('refuses malformed options naming the field', async () => {
    const env = setup();
    await expect(
      env.verikit.start({ kind: 'phone', phoneNumber: phone }, { idempotencyKey: '' }),
    ).rejects.toMatchObject({ code: 'invalid_input', field: 'idempotencyKey' });
    await expect(
      env.verikit.start({ kind: 'phone', phoneNumber: phone }, { owner: 'x'.repeat(513) }),
    ).rejects.toMatchObject({ code: 'invalid_input', field: 'owner' });
  });
});
