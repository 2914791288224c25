import { CapabilityError, InvalidInputError } from '@verikit/provider';
import { createTestProviderV1 } from '@verikit/testing';
import { describe, expect, it } from 'vitest';
import { setup } from './engine.fixtures.js';

const vnin = 'YV111111111111FY';

async function refusal(promise: Promise<unknown>): Promise<Error & { field?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a refusal');
}

describe('the NIN flow takes a 16-character virtual NIN where the provider does', () => {
  it('sends the OTP for a vNIN, shows it masked as a NIN, and verifies', async () => {
    const { verikit, provider, raw } = setup();
    const flow = await verikit.start({ kind: 'identity', idType: 'nin', number: vnin });
    expect(provider.callsOf('identity.sendOtp')[0]?.input.number).toBe(vnin);
    const view = JSON.stringify(flow);
    expect(view).not.toContain(vnin);
    expect(view).toContain('1FY'.slice(-3));
    expect(raw()).not.toContain(vnin);
    const done = await verikit.send(flow.id, { type: 'submit-code', code: provider.lastCode('+2348000000000')! });
    expect(done.status).toBe('verified');
  });

  it('refuses a vNIN with a CapabilityError on number where the provider cannot take one, before anything is sent', async () => {
    const { verikit, provider, raw } = setup({ provider: createTestProviderV1({ virtualNin: false }) });
    const error = await refusal(verikit.start({ kind: 'identity', idType: 'nin', number: vnin }));
    expect(CapabilityError.isInstance(error)).toBe(true);
    expect(error.field).toBe('number');
    expect(error.message).toMatch(/virtual NIN/);
    expect(provider.calls).toHaveLength(0);
    expect(raw()).toBe('[]');
    // The 11-digit NIN still works there.
    await expect(verikit.start({ kind: 'identity', idType: 'nin', number: '12345678901' })).resolves.toBeDefined();
  });

  it('refuses a vNIN given as a BVN, and a malformed one, naming the number', async () => {
    const { verikit } = setup();
    const asBvn = await refusal(verikit.start({ kind: 'identity', idType: 'bvn', number: vnin }));
    expect(InvalidInputError.isInstance(asBvn) && asBvn.field).toBe('number');
    expect(asBvn.message).toMatch(/BVN is 11 digits/);
    for (const bad of ['yv111111111111fy', 'YV11111111111FY', 'YV111111111111FY0', 'YV1111-1111111FY']) {
      const error = await refusal(verikit.start({ kind: 'identity', idType: 'nin', number: bad }));
      expect(InvalidInputError.isInstance(error) && error.field).toBe('number');
      expect(error.message).not.toContain(bad);
    }
  });

  it('applies the app’s NIN pattern to 11-digit NINs only', async () => {
    const { verikit } = setup({ identityNumberPatterns: { nin: /^9\d{10}$/ } });
    await expect(verikit.start({ kind: 'identity', idType: 'nin', number: vnin })).resolves.toBeDefined();
    const error = await refusal(verikit.start({ kind: 'identity', idType: 'nin', number: '12345678901' }));
    expect(InvalidInputError.isInstance(error)).toBe(true);
  });
});
