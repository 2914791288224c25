import { describe, expect, it } from 'vitest';
import { ProviderUnavailableError } from '@verikit/provider';
import { withFailover } from '@verikit/provider-utils';
import { KeyvFlowStore, createMemoryKeyv } from '../store/keyv-flow-store.js';
import { captureLogger, testSecret } from './engine.fixtures.js';
import { createVerikit } from './create-verikit.js';
import { ManualClock } from './manual-clock.fixtures.js';
import { createTestProviderV1 } from '@verikit/testing';

/**
 * The engine over `withFailover` (the engine's side; the failover provider's own tests are in
 * provider-utils, the same over real HTTP fakes and Redis in packages/redis). Two engines share one
 * store, as two instances of an app do: each builds its own failover provider from the same members.
 */
function instances(options: { effectTimeoutMs?: number; firstLatencyMs?: number } = {}) {
  const first = createTestProviderV1({ phoneCode: '111111', latencyMs: options.firstLatencyMs ?? 0 });
  const second = createTestProviderV1({ phoneCode: '222222' });
  const store = new KeyvFlowStore(createMemoryKeyv());
  const clock = new ManualClock();
  const engine = () =>
    createVerikit({
      provider: withFailover([
        Object.assign({}, first, { name: 'first' }),
        Object.assign({}, second, { name: 'second' }),
      ]),
      secret: testSecret,
      store,
      clock,
      logger: captureLogger().logger,
      policies: { effectTimeoutMs: options.effectTimeoutMs ?? 15_000 },
    });
  return { first, second, store, clock, a: engine(), b: engine() };
}

const phone = '+2348012345678';

describe('a flow on a failover provider', () => {
  it('the first member refuses the connection: the second sends once, and check and resend go to it from any instance', async () => {
    const { first, second, store, clock, a, b } = instances();
    first.failNext('phone.send', new ProviderUnavailableError('connect ECONNREFUSED', { requestSent: false }));
    const started = await a.start({ kind: 'phone', phoneNumber: phone });
    expect(started.status).toBe('awaiting-code');
    expect([first.callsOf('phone.send').length, second.callsOf('phone.send').length]).toEqual([1, 1]);
    expect((await store.getFlow(started.id))!.context).toMatchObject({ requestId: 'second~req-1', sentBy: 'second' });

    // The other instance: a wrong code, then a resend, then the right code, all with the second member.
    expect((await b.send(started.id, { type: 'submit-code', code: '111111' })).error).toMatchObject({
      code: 'code_invalid',
    });
    clock.advance(30_000);
    await b.send(started.id, { type: 'resend' });
    expect(second.callsOf('phone.send')[1]!.input).toMatchObject({ resendOf: 'req-1' });
    expect((await store.getFlow(started.id))!.context).toMatchObject({ requestId: 'second~req-2', sentBy: 'second' });
    expect((await a.send(started.id, { type: 'submit-code', code: '222222' })).status).toBe('verified');
    expect(second.callsOf('phone.check').map((call) => call.input.requestId)).toEqual(['req-1', 'req-2']);
    expect(first.callsOf('phone.check')).toHaveLength(0);
    expect(first.callsOf('phone.send')).toHaveLength(1);
  });

  it('the first member does not answer before the deadline: no second send, the flow shows the outcome as unknown', async () => {
    // The first member honours the abort signal the engine fires at its deadline; its request had left.
    const { first, second, a } = instances({ effectTimeoutMs: 100, firstLatencyMs: 60_000 });
    const view = await a.start({ kind: 'phone', phoneNumber: phone });
    expect(view).toMatchObject({ status: 'send-failed', error: { code: 'outcome_unknown' } });
    // The aborted call's rejection has reached the failover provider by now; it must not have moved on.
    await new Promise((resolve) => setImmediate(resolve));
    expect(first.callsOf('phone.send')).toHaveLength(1);
    expect(second.calls).toHaveLength(0);
  });

  it('a first member whose answer says the request was sent (a 5xx) is not failed over either', async () => {
    const { first, second, a } = instances();
    first.failNext('phone.send', new ProviderUnavailableError('the service answered 503', { requestSent: true }));
    expect(await a.start({ kind: 'phone', phoneNumber: phone })).toMatchObject({
      status: 'send-failed',
      error: { code: 'provider_unavailable' },
    });
    expect(second.calls).toHaveLength(0);
  });
});
