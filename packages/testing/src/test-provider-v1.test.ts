import { InvalidInputError, silentLogger } from '@verikit/provider';
import { describe, expect, it } from 'vitest';
import { createTestProviderV1 } from './test-provider-v1.js';

describe('createTestProviderV1: latency and the abort signal', () => {
  it('rejects at once, with the signal reason, when the signal is already aborted and latency is set', async () => {
    const provider = createTestProviderV1({ latencyMs: 10_000 });
    const reason = new Error('deadline passed');
    const context = { signal: AbortSignal.abort(reason), idempotencyKey: 'flow:effect:1', logger: silentLogger };
    const startedAt = Date.now();
    const outcome = await Promise.race([
      provider.sms!.send({ from: 'Shop', to: '+2348031110001', message: 'hi' }, context).then(
        () => 'resolved',
        (error: unknown) => error,
      ),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 200)),
    ]);
    expect(outcome).toBe(reason);
    expect(Date.now() - startedAt).toBeLessThan(200);
    expect(provider.outbox).toHaveLength(0);
  });

  it('rejects when the signal aborts during the latency', async () => {
    const provider = createTestProviderV1({ latencyMs: 10_000 });
    const controller = new AbortController();
    const call = provider.sms!.send({ from: 'Shop', to: '+2348031110001', message: 'hi' }, { signal: controller.signal, idempotencyKey: 'k', logger: silentLogger });
    controller.abort(new Error('stop'));
    await expect(call).rejects.toThrow('stop');
  });
});

describe('createTestProviderV1: webhooks.parse', () => {
  const parse = createTestProviderV1().webhooks!.parse;
  const raw = (body: string) => ({ body, headers: {} });

  it("reads the service's USSD_VERIFICATION payload, and gives null for other events", () => {
    expect(parse(raw(JSON.stringify({ event: 'USSD_VERIFICATION', phoneNumber: '+2348012345678', status: 'failed' })))).toEqual({
      type: 'ussd-verification',
      phoneNumber: '+2348012345678',
      status: 'failed',
    });
    expect(parse(raw(JSON.stringify({ event: 'SMS_DELIVERED', id: 1 })))).toBeNull();
  });

  it('refuses a malformed body with an InvalidInputError naming the field, never quoting it', () => {
    const cases: Array<[string, string]> = [
      ['not json 8012345678', 'body'],
      ['[1,2]', 'body'],
      [JSON.stringify({ event: 'USSD_VERIFICATION', phoneNumber: '+2348012345678', status: 'maybe' }), 'body.status'],
      [JSON.stringify({ event: 'USSD_VERIFICATION', status: 'success' }), 'body.phoneNumber'],
    ];
    for (const [body, field] of cases) {
      let caught: unknown;
      try {
        parse(raw(body));
      } catch (error) {
        caught = error;
      }
      expect(InvalidInputError.isInstance(caught) && caught.field, body).toBe(field);
      expect((caught as Error).message).not.toContain('8012345678');
    }
  });
});
