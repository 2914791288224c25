import {
  CapabilityError,
  InvalidInputError,
  ProviderAuthenticationError,
  ProviderRejectedError,
  ProviderUnavailableError,
  silentLogger,
  type ProviderCallContextV1,
} from '@verikit/provider';
import { createTestProviderV1 } from '@verikit/testing';
import { describe, expect, it } from 'vitest';
import { createPostingProvider } from './http-provider.fixtures.js';
import { isProvablyUnsent } from './is-provably-unsent.js';
import { closedPort, startSilentServer } from './network.fixtures.js';
import { withFailover } from './with-failover.js';

const context = (): ProviderCallContextV1 => ({
  signal: new AbortController().signal,
  idempotencyKey: 'flow:effect:1',
  logger: silentLogger,
});
const sms = { from: 'Shop', to: '+2348031230001', message: 'hi' };

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('withFailover: the next provider only when the previous provably sent nothing', () => {
  it('the first provider refuses the connection → the second sends, once', async () => {
    const second = createTestProviderV1({ name: 'second' });
    const failover = withFailover([createPostingProvider('first', `http://127.0.0.1:${await closedPort()}`), second]);
    await failover.sms!.send(sms, context());
    expect(second.outbox.filter((message) => message.to === sms.to)).toHaveLength(1);
    expect(second.calls).toHaveLength(1);
  });
  it('the first provider times out after the request left → no second send', async () => {
    const server = await startSilentServer();
    try {
      const second = createTestProviderV1({ name: 'second' });
      const failover = withFailover([createPostingProvider('first', server.url, 1000), second]);
      const error = await failure(failover.sms!.send(sms, context()));
      expect(ProviderUnavailableError.isInstance(error)).toBe(true);
      // The request left: the server reads it (on a loaded machine, perhaps only after the client gave up).
      await expect.poll(() => server.received()).toBe(1);
      expect(second.calls).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
  it('credentials refused and a missing channel fail over; a 5xx, a rejection or a timeout does not', async () => {
    expect(isProvablyUnsent(new ProviderAuthenticationError())).toBe(true);
    expect(isProvablyUnsent(new CapabilityError('voice', 'x'))).toBe(true);
    expect(isProvablyUnsent(new ProviderUnavailableError('refused', { requestSent: false }))).toBe(true);
    expect(isProvablyUnsent(new ProviderUnavailableError('500', { requestSent: true }))).toBe(false);
    expect(isProvablyUnsent(new ProviderUnavailableError('timeout'))).toBe(false);
    expect(isProvablyUnsent(new ProviderRejectedError('no'))).toBe(false);
    expect(isProvablyUnsent(new Error('ECONNREFUSED'))).toBe(false);

    const first = createTestProviderV1({ name: 'first' });
    const second = createTestProviderV1({ name: 'second' });
    const failover = withFailover([first, second]);
    first.failNext('sms.send', new ProviderAuthenticationError());
    await failover.sms!.send(sms, context());
    expect(second.calls).toHaveLength(1);
    first.failNext('sms.send', new ProviderUnavailableError('HTTP 500', { requestSent: true }));
    expect(ProviderUnavailableError.isInstance(await failure(failover.sms!.send(sms, context())))).toBe(true);
    expect(second.calls).toHaveLength(1);
  });
  it('a channel the first lacks goes to the second; the check goes to the member that sent, by its requestId', async () => {
    const first = createTestProviderV1({ name: 'first', channels: ['sms'], phoneCode: '111111' });
    const second = createTestProviderV1({ name: 'second', channels: ['sms', 'whatsapp'], phoneCode: '222222' });
    const failover = withFailover([first, second]);
    expect(failover.phone!.channels).toEqual(['sms', 'whatsapp']);
    const sent = await failover.phone!.send({ phoneNumber: '+2348031230002', channel: 'whatsapp' }, context());
    expect(sent).toEqual({ requestId: 'second~req-1', sentBy: 'second' });
    expect(first.calls).toHaveLength(0);
    await expect(failover.phone!.check({ requestId: sent.requestId, code: '222222' }, context())).resolves.toEqual({
      valid: true,
    });
    // A second failover built from the same members (another instance) routes the check the same way.
    const elsewhere = withFailover([createTestProviderV1({ name: 'first' }), second]);
    await expect(elsewhere.phone!.check({ requestId: sent.requestId, code: '222222' }, context())).resolves.toEqual({
      valid: true,
    });
    expect(
      ProviderRejectedError.isInstance(
        await failure(failover.phone!.check({ requestId: 'nobody~req-1', code: '123456' }, context())),
      ),
    ).toBe(true);
  });
  it('a resend goes to the member that sent the first code, even when the first member is back', async () => {
    const first = createTestProviderV1({ name: 'first' });
    const second = createTestProviderV1({ name: 'second' });
    const failover = withFailover([first, second]);
    first.failNext('phone.send', new ProviderUnavailableError('refused', { requestSent: false }));
    const sent = await failover.phone!.send({ phoneNumber: '+2348031230003', channel: 'sms' }, context());
    expect(sent.sentBy).toBe('second');
    const resent = await failover.phone!.send(
      { phoneNumber: '+2348031230003', channel: 'sms', resendOf: sent.requestId },
      context(),
    );
    expect(resent.sentBy).toBe('second');
    expect(second.calls.at(-1)!.input).toMatchObject({ resendOf: 'req-1' });
    expect(first.calls).toHaveLength(1);
  });
  it('no member with the capability → CapabilityError; bad members → InvalidInputError naming them', async () => {
    const onlySms = withFailover([{ specificationVersion: 'v1', name: 'a', sms: createTestProviderV1().sms }]);
    expect(onlySms.phone).toBeUndefined();
    const bad: Array<[string, () => unknown]> = [
      ['providers', () => withFailover([])],
      ['providers', () => withFailover('nope' as never)],
      ['providers.1', () => withFailover([createTestProviderV1(), { name: 'x' } as never])],
      ['providers.1.name', () => withFailover([createTestProviderV1(), createTestProviderV1()])],
      ['name', () => withFailover([createTestProviderV1()], { name: 'Not A Name' })],
    ];
    for (const [field, run] of bad) {
      let error: unknown;
      try {
        run();
      } catch (caught) {
        error = caught;
      }
      expect(InvalidInputError.isInstance(error) && error.field).toBe(field);
    }
  });
});

describe('withFailover with dial-in (inbound: the code users dial is one provider’s)', () => {
  const dialInOf = (serviceCode: string) => ({
    serviceCode,
    parseSession: () => ({ sessionId: 'ATUid_1', phoneNumber: '+2348031230010', text: '' }),
    answer: (kind: 'CON' | 'END', screen: string) => ({ body: `${kind} ${screen}`, contentType: 'text/plain' }),
  });

  it('takes the dialIn of the first member that has one, as it is', () => {
    const first = dialInOf('*384*1#');
    const failover = withFailover([
      createTestProviderV1({ name: 'none' }),
      { ...createTestProviderV1({ name: 'gateway' }), dialIn: first },
      { ...createTestProviderV1({ name: 'other' }), dialIn: dialInOf('*384*2#') },
    ]);
    expect(failover.dialIn).toBe(first);
    expect(failover.dialIn?.serviceCode).toBe('*384*1#');
  });
  it('has no dialIn when no member has one', () => {
    expect(withFailover([createTestProviderV1({ name: 'a' }), createTestProviderV1({ name: 'b' })]).dialIn).toBe(
      undefined,
    );
  });
});
