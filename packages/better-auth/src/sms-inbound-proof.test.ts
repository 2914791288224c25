import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defaultProofMethods } from '@verikit/core';
import {
  betterAuthWithVerikit,
  expectProofMethodRefused,
  inboundSmsNumber,
  postToAuth,
} from './better-auth.fixtures.js';

const victim = '+2348031234567';

type Env = Awaited<ReturnType<typeof betterAuthWithVerikit>>;

/** An SMS "from" the victim carrying the reference: a sender forged on the SMS route reaches the provider as any. */
async function forgedSms(env: Env, reference: unknown) {
  const received = await env.verikit.receive({
    id: `SM${randomUUID()}`,
    event: { type: 'inbound-message', channel: 'sms', from: victim, to: inboundSmsNumber, text: String(reference) },
  });
  expect(received.outcome).toBe('applied');
}

/** A proof of a flow started on the plugin's flow routes, asked for as the browser does. */
async function proofOf(env: Env, started: { body: Record<string, unknown> }) {
  const issued = await postToAuth(env, `/verikit/flows/${String(started.body.id)}/proof`, undefined, {
    'verikit-flow-secret': String(started.body.flowSecret),
  });
  expect(issued.status).toBe(201);
  return String(issued.body.token);
}

/**
 * Decision 1800: an attacker starts a flow for the victim's number with an `sms-inbound` step, reads its reference,
 * and has an SMS forged "from" the victim carry it. The plugin signs no one in on such a proof unless the app opted in.
 */
describe('an sms-inbound proof does not sign in by default', () => {
  it('the flow routes refuse to start a plan with an sms-inbound step (403); a whatsapp-inbound plan starts', async () => {
    const env = await betterAuthWithVerikit({}, { inbound: true });
    const refused = await postToAuth(env, '/verikit/flows', {
      kind: 'phone',
      phoneNumber: victim,
      channels: ['sms-inbound', 'sms'],
    });
    expect([refused.status, (refused.body.error as { code: string }).code]).toEqual([403, 'forbidden']);
    const whatsapp = { kind: 'phone', phoneNumber: victim, channels: ['whatsapp-inbound', 'sms'] };
    expect((await postToAuth(env, '/verikit/flows', whatsapp)).status).toBe(201);
  });

  it('a forged SMS verifies a flow started elsewhere, but sign-in refuses its proof (403 method): no user, no session', async () => {
    const env = await betterAuthWithVerikit({}, { inbound: true });
    const flow = await env.verikit.start({ kind: 'phone', phoneNumber: victim, channels: ['sms-inbound', 'sms'] });
    await forgedSms(env, flow.inbound!.reference);
    const proof = (await env.verikit.issueProof(flow.id)).token;
    await expectProofMethodRefused(env, victim, proof);
  });

  it('an app whose proofMethods name sms-inbound starts such plans and signs their numbers in', async () => {
    const env = await betterAuthWithVerikit(
      { proofMethods: [...defaultProofMethods, 'sms-inbound'] },
      { inbound: true },
    );
    const started = await postToAuth(env, '/verikit/flows', {
      kind: 'phone',
      phoneNumber: victim,
      channels: ['sms-inbound', 'sms'],
    });
    expect(started.status).toBe(201);
    await forgedSms(env, (started.body.inbound as { reference: string }).reference);
    const signedIn = await postToAuth(env, '/sign-in/phone-proof', {
      phoneNumber: victim,
      proof: await proofOf(env, started),
    });
    expect(signedIn.status).toBe(200);
    expect(signedIn.cookie).toBeDefined();
    expect(env.rows('user')).toHaveLength(1);
  });
});
