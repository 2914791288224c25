import { afterEach, describe, expect, it } from 'vitest';
import type { ProviderV1 } from '@verikit/provider';
import { EventNotAllowedError } from '../errors/event-not-allowed-error.js';
import { createHttpClient, statusError, withFailover } from '@verikit/provider-utils';
import {
  createTestProviderV1,
  startMisbehavingServer,
  type Misbehaviour,
  type MisbehavingServer,
} from '@verikit/testing';
import { createVerikit } from './create-verikit.js';
import { testSecret } from './engine.fixtures.js';
import { ManualClock } from './manual-clock.fixtures.js';

// Finding 6 of the attacker review (a timed-out first send treated as never sent: an immediate resend sent a
// second SMS) and issue 17, item 8 (a provider's 500 on the first send still made the user wait the cooldown).
// Real HTTP against local servers; the provider is the shared client every HTTP provider is built on.
const phone = '+2348012345678';
const clientTimeoutMs = 2000;
const servers: MisbehavingServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serverThat(behaviour: Misbehaviour): Promise<MisbehavingServer> {
  const server = await startMisbehavingServer(behaviour);
  servers.push(server);
  return server;
}

function setup({ provider }: { provider: ProviderV1 }) {
  const clock = new ManualClock();
  return { clock, verikit: createVerikit({ provider, secret: testSecret, clock }) };
}

/** A phone provider on the shared HTTP client (as the gateway, Termii and Twilio are), posting to `url`. */
function httpPhoneProvider(name: string, url: string): ProviderV1 {
  const http = createHttpClient({ name, timeout: clientTimeoutMs, connectionRetries: 0, connectionRetryDelayMs: 0 });
  return {
    specificationVersion: 'v1',
    name,
    phone: {
      channels: ['sms'],
      async send(_input, context) {
        const answer = await http.send(
          { operation: 'phone.send', url: `${url}/send`, path: '/send', body: '{}' },
          context,
        );
        if (answer.status > 299) throw statusError(`${name} phone.send`, answer.status, undefined);
        return { requestId: 'sent' };
      },
      check: async () => ({ valid: true }),
    },
  };
}

const maybeSentServers: ReadonlyArray<[string, Misbehaviour]> = [
  ['answers after the client gave up', { kind: 'late', delayMs: clientTimeoutMs * 25, body: '{}' }],
  ['resets the connection after reading the request', { kind: 'reset' }],
  ['is a gateway answering 504', { kind: 'status', status: 504, body: '{}' }],
];

describe('a send whose outcome is unknown keeps the cooldown (finding 6)', () => {
  it.each(maybeSentServers)(
    'a provider that %s: the first send may have gone out, so no immediate resend and the view says so',
    async (_label, behaviour) => {
      const server = await serverThat(behaviour);
      const { verikit, clock } = setup({ provider: httpPhoneProvider('flaky', server.url) });
      const failed = await verikit.start({ kind: 'phone', phoneNumber: phone });
      expect(failed).toMatchObject({
        status: 'send-failed',
        error: { code: 'outcome_unknown', messageId: 'verikit.error.outcome_unknown' },
        allowed: ['cancel'],
        resendAvailableAt: clock.now() + 30_000,
      });
      expect(failed.error!.message).toContain('a code may still arrive');
      const resend = await verikit.send(failed.id, { type: 'resend' }).catch((error: unknown) => error);
      expect(EventNotAllowedError.isInstance(resend)).toBe(true);
      expect(server.received()).toBe(1);
    },
  );

  it('behind withFailover, a send that may have gone out is not repeated by the next provider', async () => {
    const server = await serverThat({ kind: 'late', delayMs: clientTimeoutMs * 25, body: '{}' });
    const next = createTestProviderV1();
    const { verikit } = setup({ provider: withFailover([httpPhoneProvider('flaky', server.url), next]) });
    const failed = await verikit.start({ kind: 'phone', phoneNumber: phone });
    expect(failed).toMatchObject({ status: 'send-failed', error: { code: 'outcome_unknown' }, allowed: ['cancel'] });
    expect(server.received()).toBe(1);
    expect(next.calls).toHaveLength(0);
  });
});

describe("a provider's answer that the send failed lets the user retry at once (issue 17, item 8)", () => {
  it('a 500 on the first send: resend allowed now, and the resend reaches the provider', async () => {
    const server = await serverThat({ kind: 'status', status: 500, body: '{"error":"internal"}' });
    const { verikit } = setup({ provider: httpPhoneProvider('flaky', server.url) });
    const failed = await verikit.start({ kind: 'phone', phoneNumber: phone });
    expect(failed).toMatchObject({
      status: 'send-failed',
      error: { code: 'provider_unavailable' },
      allowed: ['resend', 'cancel'],
    });
    expect(failed.resendAvailableAt).toBeUndefined();
    expect((await verikit.send(failed.id, { type: 'resend' })).status).toBe('send-failed');
    expect(server.received()).toBe(2);
  });

  it('behind withFailover, a 500 moves the send to the next provider: nothing was sent by the first', async () => {
    const server = await serverThat({ kind: 'status', status: 500, body: '{}' });
    const next = createTestProviderV1();
    const { verikit } = setup({ provider: withFailover([httpPhoneProvider('flaky', server.url), next]) });
    expect((await verikit.start({ kind: 'phone', phoneNumber: phone })).status).toBe('awaiting-code');
    expect(next.callsOf('phone.send')).toHaveLength(1);
  });
});
