import { createTestProviderV1 } from '@verikit/testing';
import { describe, expect, it } from 'vitest';
import type { FlowView } from '../flows/view.js';
import { setup, testSecret } from './engine.fixtures.js';

describe('secrets and identity numbers never leak', () => {
  it('after complete flows: no generated OTP, submitted code or full BVN/NIN in the store, logs, errors or views', async () => {
    const bvn = '22298765432';
    const nin = '33398765432';
    const provider = createTestProviderV1({
      identities: { [bvn]: '+2348020000001', [nin]: '+2348020000002' },
      phoneCode: '864213',
    });
    const { verikit, raw, logs, clock } = setup({ provider, policies: { maxAttempts: 2 } });
    const views: FlowView[] = [];
    const errors: unknown[] = [];
    const submitted: string[] = [];
    const collect = async (promise: Promise<FlowView>) => {
      try {
        views.push(await promise);
      } catch (error) {
        errors.push(error);
      }
    };
    const submit = async (id: string, code: string) => {
      submitted.push(code);
      await collect(verikit.send(id, { type: 'submit-code', code }));
    };

    // BVN: wrong, then right.
    const bvnFlow = await verikit.start({ kind: 'identity', idType: 'bvn', number: bvn });
    views.push(bvnFlow);
    await submit(bvnFlow.id, '975318');
    await submit(bvnFlow.id, provider.lastCode('+2348020000001')!);
    // NIN: resend, then locked out by wrong codes.
    const ninFlow = await verikit.start({ kind: 'identity', idType: 'nin', number: nin });
    clock.advance(30_000);
    await collect(verikit.send(ninFlow.id, { type: 'resend' }));
    await submit(ninFlow.id, '97531864');
    await submit(ninFlow.id, '86420975');
    await submit(ninFlow.id, '7531');
    // Phone: wrong then right.
    const phoneFlow = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345678' });
    await submit(phoneFlow.id, '5318642');
    await submit(phoneFlow.id, '864213');
    // Errors from bad input carrying identity numbers and codes.
    await collect(verikit.start({ kind: 'identity', idType: 'bvn', number: `${bvn}9` }));
    await collect(verikit.send(phoneFlow.id, { type: 'submit-code', code: `${bvn}` }));

    const generatedOtps = provider.callsOf('identity.sendOtp').map((call) => call.input.otp);
    expect(generatedOtps).toHaveLength(3);
    expect(views.map((view) => view.status)).toEqual(expect.arrayContaining(['verified', 'locked']));
    expect(errors.length).toBeGreaterThanOrEqual(2);

    const haystacks = {
      store: raw(),
      logs: JSON.stringify(logs),
      views: JSON.stringify(views),
      errors: JSON.stringify(
        errors.map((error) => ({
          message: (error as Error).message,
          ...(error as object),
          cause: String((error as Error).cause),
        })),
      ),
    };
    const needles = [...generatedOtps, ...submitted, bvn, nin, testSecret];
    for (const [where, haystack] of Object.entries(haystacks)) {
      for (const needle of needles)
        expect({ where, found: haystack.includes(needle) }).toEqual({ where, found: false });
    }
    // The masked forms are what shows.
    expect(haystacks.views).toContain('*******5432');
    expect(logs.length).toBeGreaterThan(0);
  });

  it('stores the generated OTP only as a keyed hash that depends on the secret', async () => {
    const provider = createTestProviderV1();
    const one = setup({ provider });
    const { id } = await one.verikit.start({ kind: 'identity', idType: 'bvn', number: '12345678901' });
    const record = (await one.keyv.get(`flow:${id}`)) as { context: { otpHash: string; numberHash: string } };
    expect(record.context.otpHash).toMatch(/^[0-9a-f]{32}$/);
    const other = setup({ provider: createTestProviderV1(), secret: `${testSecret}-other` });
    const { id: otherId } = await other.verikit.start({ kind: 'identity', idType: 'bvn', number: '12345678901' });
    const otherRecord = (await other.keyv.get(`flow:${otherId}`)) as { context: { numberHash: string } };
    expect(otherRecord.context.numberHash).not.toBe(record.context.numberHash);
  });
});
