import { CapabilityError, ProviderUnavailableError, silentLogger, type ProviderCallContextV1 } from '@verikit/provider';
import { createTestProviderV1 } from '@verikit/testing';
import { describe, expect, it } from 'vitest';
import { withFailover } from './with-failover.js';

const context = (): ProviderCallContextV1 => ({
  signal: new AbortController().signal,
  idempotencyKey: 'flow:effect:1',
  logger: silentLogger,
});
const who = { idType: 'bvn' as const, number: '22222222222' };
const selfie = new Uint8Array([0xff, 0xd8, 0xff, 1]);

describe('withFailover: the identity steps', () => {
  it('moves a step to the next member only when the first provably took nothing (503), and names who answered', async () => {
    const first = createTestProviderV1({ name: 'first' });
    const second = createTestProviderV1({ name: 'second' });
    const provider = withFailover([first, second], { breaker: false });
    first.failNext('identity.match', new ProviderUnavailableError('503', { requestSent: true, maybeSent: false }));
    const matched = await provider.identitySteps!.match!({ ...who, claims: { lastName: 'Okonkwo' } }, context());
    expect(matched).toMatchObject({ found: true, fields: { lastName: true }, by: 'second' });
    expect([first.callsOf('identity.match').length, second.callsOf('identity.match').length]).toEqual([1, 1]);
    first.failNext('identity.face', new ProviderUnavailableError('refused', { requestSent: false }));
    expect(await provider.identitySteps!.face!({ ...who, image: selfie }, context())).toMatchObject({ by: 'second' });
  });

  it('never repeats a step elsewhere when the first may have taken it (a timeout, a 504)', async () => {
    const first = createTestProviderV1({ name: 'first' });
    const second = createTestProviderV1({ name: 'second' });
    const provider = withFailover([first, second], { breaker: false });
    first.failNext('identity.face', new ProviderUnavailableError('timeout', { requestSent: true, maybeSent: true }));
    await expect(provider.identitySteps!.face!({ ...who, image: selfie }, context())).rejects.toThrow('timeout');
    expect(second.callsOf('identity.face')).toHaveLength(0);
  });

  it('asks a consent status of the member that made the request, whatever the order', async () => {
    const first = createTestProviderV1({ name: 'first' });
    const second = createTestProviderV1({ name: 'second' });
    const provider = withFailover([first, second], { breaker: false });
    first.failNext('identity.consent.request', new ProviderUnavailableError('503', { requestSent: false }));
    const request = await provider.identitySteps!.consent!.request(who, context());
    expect(request.reference).toMatch(/^second~consent-/);
    second.script('identity.consent.status', { status: 'refused' });
    expect(await provider.identitySteps!.consent!.status({ reference: request.reference }, context())).toEqual({
      status: 'refused',
      by: 'second',
    });
    expect(first.callsOf('identity.consent.status')).toHaveLength(0);
  });

  it('offers a step only when a member has it, and refuses one no member has for the number type', async () => {
    const provider = withFailover([
      createTestProviderV1({ name: 'matcher', identitySteps: ['match'] }),
      createTestProviderV1({ name: 'plain', identitySteps: [] }),
    ]);
    expect(provider.identitySteps?.match).toBeDefined();
    expect(provider.identitySteps?.face).toBeUndefined();
    expect(withFailover([createTestProviderV1({ identitySteps: [] })]).identitySteps).toBeUndefined();
    const error = await provider.identitySteps!.match!(
      { idType: 'vin' as never, number: '1', claims: {} },
      context(),
    ).catch((caught: unknown) => caught);
    expect(CapabilityError.isInstance(error)).toBe(true);
  });
});
