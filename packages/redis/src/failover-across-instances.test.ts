/**
 * A flow on a failover provider (`withFailover`), over real HTTP (the Termii and Twilio fakes) and
 * two engines sharing one Redis: the code stays with the provider that sent it, on any instance,
 * with nothing stored beside the flow. Mandatory when CI=true; skipped, with the reason printed, when
 * Redis is unreachable and CI is not set.
 */
import { createVerikit, type Verikit } from '@verikit/core';
import type { ProviderV1 } from '@verikit/provider';
import { withFailover } from '@verikit/provider-utils';
import { createRedisStore, type RedisFlowStore } from '@verikit/redis';
import { createTermiiProvider } from '@verikit/termii';
import { startTermiiFake, type TermiiFake } from '@verikit/termii/fake';
import { freshPhoneNumber } from '@verikit/testing';
import { createTwilioProvider } from '@verikit/twilio';
import { startTwilioFake, twilioMagicNumbers, type TwilioFake } from '@verikit/twilio/fake';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteNamespace, freePort, redisSkipReason, redisUrl, uniqueNamespace } from './redis-test-env.fixtures.js';

const secret = 'failover-across-instances-secret-0123456789';
const unavailable = await redisSkipReason('failover across instances');

describe.skipIf(unavailable !== undefined)('a failover provider on two engines sharing Redis', () => {
  const namespace = uniqueNamespace('failover');
  const stores: RedisFlowStore[] = [];
  let twilioFake: TwilioFake;
  let termiiFake: TermiiFake;
  let refusedUrl: string;
  /** Requests each Termii provider tried to make (a refused connection counts, with its retry). */
  const termiiAttempts = { refused: 0, fake: 0 };
  const counting =
    (key: keyof typeof termiiAttempts): typeof fetch =>
    (input, init) => {
      termiiAttempts[key] += 1;
      return fetch(input, init);
    };

  beforeAll(async () => {
    twilioFake = await startTwilioFake({ slowMs: 60_000 });
    termiiFake = await startTermiiFake();
    // A port nothing listens on: the connection is refused, so nothing can have been sent.
    refusedUrl = `http://127.0.0.1:${await freePort()}`;
  });

  afterAll(async () => {
    for (const store of stores) await store.close();
    await twilioFake?.close();
    await termiiFake?.close();
    if (unavailable === undefined) await deleteNamespace(namespace);
  });

  const twilio = () => createTwilioProvider({ ...twilioFake.settings });
  const refusedTermii = () =>
    createTermiiProvider({
      apiKey: 'termii-unreachable-key',
      baseUrl: refusedUrl,
      senderId: 'Verikit',
      fetch: counting('refused'),
    });
  const fakeTermii = () =>
    createTermiiProvider({
      apiKey: termiiFake.apiKey,
      baseUrl: termiiFake.baseUrl,
      senderId: 'Verikit',
      fetch: counting('fake'),
    });

  /** One app instance: its own Redis connections and its own providers, built from the same settings. */
  function instance(
    members: () => ProviderV1[],
    policies: { effectTimeoutMs?: number } = {},
  ): { verikit: Verikit; store: RedisFlowStore } {
    const store = createRedisStore({ url: redisUrl, namespace });
    stores.push(store);
    return {
      store,
      verikit: createVerikit({
        provider: withFailover(members()),
        store,
        secret,
        policies: { resendCooldownMs: 0, ...policies },
      }),
    };
  }

  it('the first member refuses the connection: Twilio sends once; the check and the resend on the other instance go to Twilio', async () => {
    const a = instance(() => [refusedTermii(), twilio()]);
    const b = instance(() => [refusedTermii(), twilio()]);
    const phoneNumber = freshPhoneNumber();
    const refusedBefore = termiiAttempts.refused;

    const started = await a.verikit.start({ kind: 'phone', phoneNumber });
    expect(started.status).toBe('awaiting-code');
    expect(termiiAttempts.refused).toBeGreaterThan(refusedBefore);
    expect(twilioFake.outbox.filter((message) => message.to === phoneNumber)).toHaveLength(1);
    const refusedAfterStart = termiiAttempts.refused;
    const stored = (await b.store.getFlow(started.id))!.context;
    expect(stored).toMatchObject({ sentBy: 'twilio', requestId: expect.stringMatching(/^twilio~VE[0-9a-f]{32}$/) });

    // Instance B never sent anything for this flow: the requestId alone routes its calls to Twilio.
    const wrong = twilioFake.lastCode(phoneNumber) === '000000' ? '111111' : '000000';
    expect((await b.verikit.send(started.id, { type: 'submit-code', code: wrong })).error).toMatchObject({
      code: 'code_invalid',
    });
    await b.verikit.send(started.id, { type: 'resend' });
    expect(twilioFake.outbox.filter((message) => message.to === phoneNumber)).toHaveLength(2);
    expect(
      (await a.verikit.send(started.id, { type: 'submit-code', code: twilioFake.lastCode(phoneNumber)! })).status,
    ).toBe('verified');
    // The checks and the resend went to Twilio directly: Termii was not even tried after the first send.
    expect(termiiAttempts.refused).toBe(refusedAfterStart);
  });

  it('the first member does not answer before the engine deadline: no second send, the flow shows the outcome as unknown', async () => {
    const phoneNumber = Object.entries(twilioMagicNumbers).find(([, behaviour]) => behaviour === 'slow')![0];
    const a = instance(() => [twilio(), fakeTermii()], { effectTimeoutMs: 300 });
    const b = instance(() => [twilio(), fakeTermii()], { effectTimeoutMs: 300 });
    const view = await a.verikit.start({ kind: 'phone', phoneNumber });
    expect(view).toMatchObject({ status: 'send-failed', error: { code: 'outcome_unknown' } });
    // The other instance reads the same outcome; and nothing went to Termii from either.
    expect(await b.verikit.get(view.id)).toMatchObject({ status: 'send-failed', error: { code: 'outcome_unknown' } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(termiiAttempts.fake).toBe(0);
    expect(termiiFake.outbox).toHaveLength(0);
  });
});
