import { describe, expect, it } from 'vitest';
import { RateLimitedError } from '@verikit/provider';
import { setup, testSecret } from './engine.fixtures.js';
import { createVerikit } from './create-verikit.js';
import { KeyvFlowStore, createMemoryKeyv } from '../store/keyv-flow-store.js';
import { createTestProviderV1 } from '@verikit/testing';

const phone = '+2348031234567';
const otherPhone = '+2348037654321';

/** Every key name in the memory store (the values are records, which may hold a number where a later step needs it). */
function keyNames(keyv: ReturnType<typeof createMemoryKeyv>): string[] {
  return [...(keyv.store as Map<string, unknown>).keys()];
}

describe('store key names carry a keyed hash of the phone number, never the number', () => {
  it('after a USSD flow verified by its webhook and a phone flow, no key name holds the last 7 digits of either number', async () => {
    const { verikit, provider, keyv } = setup();
    const ussd = await verikit.start({ kind: 'ussd', phoneNumber: phone });
    await provider.completeUssd(phone);
    expect((await verikit.get(ussd.id)).status).toBe('verified');
    const code = await verikit.start({ kind: 'phone', phoneNumber: otherPhone });
    await verikit.send(code.id, { type: 'submit-code', code: provider.lastCode(otherPhone)! });
    expect((await verikit.get(code.id)).status).toBe('verified');

    const names = keyNames(keyv);
    expect(names.some((name) => name.includes('route:ussd:phone:'))).toBe(true);
    expect(names.filter((name) => name.includes('limit:sends:phone:'))).toHaveLength(2);
    for (const number of [phone, otherPhone]) {
      for (const name of names) expect(name).not.toContain(number.slice(-7));
    }
  });

  it('keys one number the same way in every flow (one hourly limit per number) and differently under another secret', async () => {
    const { verikit, provider } = setup({ policies: { maxSendsPerHour: 2 } });
    await verikit.start({ kind: 'ussd', phoneNumber: phone });
    await verikit.start({ kind: 'phone', phoneNumber: phone });
    await expect(verikit.start({ kind: 'phone', phoneNumber: phone })).rejects.toThrow(RateLimitedError);
    await expect(verikit.start({ kind: 'ussd', phoneNumber: phone })).rejects.toThrow(RateLimitedError);
    expect(provider.callsOf('phone.send')).toHaveLength(1);

    const keyvA = createMemoryKeyv();
    const keyvB = createMemoryKeyv();
    await createVerikit({
      provider: createTestProviderV1(),
      secret: testSecret,
      store: new KeyvFlowStore(keyvA),
    }).start({ kind: 'ussd', phoneNumber: phone });
    await createVerikit({
      provider: createTestProviderV1(),
      secret: `${testSecret}-other`,
      store: new KeyvFlowStore(keyvB),
    }).start({
      kind: 'ussd',
      phoneNumber: phone,
    });
    const routeOf = (keyv: ReturnType<typeof createMemoryKeyv>) =>
      keyNames(keyv).find((name) => name.includes('route:ussd:'));
    expect(routeOf(keyvA)).toBeDefined();
    expect(routeOf(keyvA)).not.toBe(routeOf(keyvB));
  });

  it('still routes the result of a flow started before the upgrade through its old route key (read, never written)', async () => {
    const { verikit, store, keyv } = setup();
    const started = await verikit.start({ kind: 'ussd', phoneNumber: phone });
    // As an older version left it: only the number in clear points at the flow.
    const hashedRoute = keyNames(keyv).find((name) => name.startsWith('verikit:route:ussd:phone:'))!;
    expect(await keyv.delete(hashedRoute.slice('verikit:'.length))).toBe(true);
    await store.setRoute(`ussd:${phone}`, started.id, 60_000);
    expect(keyNames(keyv).filter((name) => name.includes('route:ussd:phone:'))).toEqual([]);

    const result = await verikit.receive({
      id: 'msg_legacy_route',
      event: { type: 'ussd-verification', phoneNumber: phone, status: 'success' },
    });
    expect(result).toMatchObject({ outcome: 'applied', flowId: started.id });
    expect(keyNames(keyv).filter((name) => name.includes(phone.slice(-7)))).toHaveLength(1);
  });
});
