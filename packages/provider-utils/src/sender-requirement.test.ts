import { createTestProviderV1 } from '@verikit/testing';
import { CapabilityError, requireCapabilityV1, type ProviderV1 } from '@verikit/provider';
import { describe, expect, it } from 'vitest';
import { senderRequirement } from './sender-requirement.js';

describe('senderRequirement', () => {
  it('requires a sender only when no default sender is set', () => {
    expect(senderRequirement(undefined)).toEqual({ requires: ['sender'] });
    expect(senderRequirement(undefined, undefined)).toEqual({ requires: ['sender'] });
    expect(senderRequirement(undefined, 'MG123')).toEqual({});
    expect(senderRequirement('Acme')).toEqual({});
  });

  it('spread into sms, a start without from is refused before any send', () => {
    const base = createTestProviderV1();
    const provider: ProviderV1 = { ...base, sms: { ...base.sms!, ...senderRequirement(undefined) } };
    let error: unknown;
    try {
      requireCapabilityV1(provider, { capability: 'sms' });
    } catch (caught) {
      error = caught;
    }
    expect(CapabilityError.isInstance(error) && error.field).toBe('from');
    expect(() => requireCapabilityV1(provider, { capability: 'sms', from: 'Acme' })).not.toThrow();
  });
});
