import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { betterAuthWithVerikit, expectProofMethodRefused, postToAuth } from './better-auth.fixtures.js';

const victim = '+2348031234567';

type Env = Awaited<ReturnType<typeof betterAuthWithVerikit>>;

/** The victim dials the attacker's reference: the carrier reports the victim's number. */
async function victimDials(env: Env, ussdCode: unknown) {
  const reference = /\*([0-9]+)#$/.exec(String(ussdCode))![1]!;
  const received = await env.verikit.receive({
    id: `africastalking:ussd:ATUid_${randomUUID()}`,
    event: { type: 'dial-in', phoneNumber: victim, reference },
  });
  expect(received.outcome).toBe('applied');
}

/**
 * Device-code phishing (issue 35, finding 1): the attacker holds a "who is this" dial-in flow, sends its code to the
 * victim ("dial to claim your airtime"), and once the victim dials, redeems the proof as the victim's number.
 */
describe('a "who is this" dial-in proof does not sign in whoever dialled', () => {
  it('an anonymous client cannot start a dial-in flow without a number on the flow routes', async () => {
    const env = await betterAuthWithVerikit({}, { dialIn: true });
    const refused = await postToAuth(env, '/verikit/flows', { kind: 'dial-in' });
    expect([refused.status, (refused.body.error as { code: string }).code]).toEqual([403, 'forbidden']);
    // A flow verifying a number the user typed still starts.
    expect((await postToAuth(env, '/verikit/flows', { kind: 'dial-in', phoneNumber: victim })).status).toBe(201);
  });

  it("refuses the phished proof at sign-in (403 method), and no session or user is made for the victim's number", async () => {
    const env = await betterAuthWithVerikit({}, { dialIn: true });
    // The flow exists anyway (another route of the app started it): sign-in still refuses its proof.
    const attackerFlow = await env.verikit.start({ kind: 'dial-in' });
    await victimDials(env, attackerFlow.ussdCode);
    const proof = (await env.verikit.issueProof(attackerFlow.id)).token;
    await expectProofMethodRefused(env, victim, proof);
  });

  it('an app that opts in (proofMethods names dial-in-identify) starts such flows and signs their numbers in', async () => {
    const env = await betterAuthWithVerikit(
      { proofMethods: ['phone', 'dial-in', 'dial-in-identify'] },
      { dialIn: true },
    );
    const started = await postToAuth(env, '/verikit/flows', { kind: 'dial-in' });
    expect(started.status).toBe(201);
    await victimDials(env, started.body.ussdCode);
    const issued = await postToAuth(env, `/verikit/flows/${String(started.body.id)}/proof`, undefined, {
      'verikit-flow-secret': String(started.body.flowSecret),
    });
    const token = String(issued.body.token);
    expect(issued.status).toBe(201);
    const signedIn = await postToAuth(env, '/sign-in/phone-proof', { phoneNumber: victim, proof: token });
    expect([signedIn.status, signedIn.body]).toEqual([200, expect.anything()]);
  });
});
