import { afterEach, expect, it } from 'vitest';
import { expectNoSecrets } from '@verikit/testing';
import { ProofRejectedError, type FlowView } from '@verikit/core';
import type { FlowAction } from './flow-handler-options.js';
import {
  describeAdapters,
  errorOf,
  EventReader,
  phoneNumber,
  postJson,
  setupHttp,
  type HttpSetup,
} from './http.fixtures.js';

let setup: HttpSetup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

const bvn = '22298765432';

async function start(body: unknown): Promise<FlowView> {
  return (await (await postJson(`${setup!.url}/flows`, body)).json()) as FlowView;
}

async function verifiedPhone(): Promise<FlowView> {
  const view = await start({ kind: 'phone', phoneNumber });
  return (await (
    await postJson(`${setup!.url}/flows/${view.id}/events`, {
      type: 'submit-code',
      code: setup!.provider.lastCode(phoneNumber),
    })
  ).json()) as FlowView;
}

function askProof(flowId: string): Promise<Response> {
  return fetch(`${setup!.url}/flows/${flowId}/proof`, { method: 'POST' });
}

describeAdapters('POST /flows/:id/proof', () => {
  it('answers 201 { token, expiresAt } for a verified flow, never cached; the signup endpoint redeems it once', async () => {
    setup = await setupHttp();
    const view = await verifiedPhone();
    const response = await askProof(view.id);
    expect(response.status).toBe(201);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const proof = (await response.json()) as { token: string; expiresAt: number };
    expect(Object.keys(proof).sort()).toEqual(['expiresAt', 'token']);
    expect(proof.expiresAt).toBeGreaterThan(Date.now());
    // What the app's signup endpoint does with what the browser hands it.
    expect(await setup.verikit.redeemProof(proof.token, { phoneNumber })).toMatchObject({
      flowId: view.id,
      kind: 'phone',
      phoneNumber,
    });
    const replay = await setup.verikit.redeemProof(proof.token, { phoneNumber }).catch((error: unknown) => error);
    expect(ProofRejectedError.isInstance(replay) && replay.reason).toBe('used');
  });

  it('refuses a flow that is not verified (409), an unknown one (404), a malformed id (400) and other methods (405)', async () => {
    setup = await setupHttp();
    const view = await start({ kind: 'phone', phoneNumber });
    const pending = await askProof(view.id);
    expect(pending.status).toBe(409);
    expect(await errorOf(pending)).toMatchObject({ code: 'flow_not_verified', field: 'flowId' });
    expect((await askProof('A'.repeat(22))).status).toBe(404);
    const malformed = await askProof('not%20an%20id');
    expect(malformed.status).toBe(400);
    expect(await errorOf(malformed)).toMatchObject({ code: 'invalid_input', field: 'flowId' });
    const get = await fetch(`${setup.url}/flows/${view.id}/proof`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('asks authorize with action proof and the flow view; anything but true is 403 and issues nothing', async () => {
    const seen: Array<[FlowAction, string]> = [];
    let allow = false;
    setup = await setupHttp({
      authorize: (_request, flow, action) => {
        if ('status' in flow) seen.push([action, flow.status]);
        return action !== 'proof' || allow;
      },
    });
    const view = await verifiedPhone();
    const denied = await askProof(view.id);
    expect(denied.status).toBe(403);
    expect(await errorOf(denied)).toMatchObject({ code: 'forbidden' });
    allow = true;
    expect((await askProof(view.id)).status).toBe(201);
    expect(seen.filter(([action]) => action === 'proof')).toEqual([
      ['proof', 'verified'],
      ['proof', 'verified'],
    ]);
  });

  it('neither the token nor a full number reaches a view, a stream or an error; no token or BVN reaches the store', async () => {
    setup = await setupHttp();
    const phoneView = await verifiedPhone();
    const identity = await start({ kind: 'identity', idType: 'bvn', number: bvn });
    const identityView = (await (
      await postJson(`${setup.url}/flows/${identity.id}/events`, {
        type: 'submit-code',
        code: setup.provider.lastCode(setup.provider.outbox.at(-1)!.to),
      })
    ).json()) as FlowView;
    expect(identityView.status).toBe('verified');
    const proofs = await Promise.all(
      [phoneView.id, identityView.id].map(
        async (id) => ((await (await askProof(id)).json()) as { token: string }).token,
      ),
    );
    const reads = await Promise.all(
      [phoneView.id, identityView.id].map(async (id) => (await fetch(`${setup!.url}/flows/${id}`)).text()),
    );
    const streamed = await Promise.all(
      [phoneView.id, identityView.id].map(async (id) => {
        const events = new EventReader(await fetch(`${setup!.url}/flows/${id}/stream`));
        const blocks: string[] = [];
        for (let block = await events.nextBlock(); block !== undefined; block = await events.nextBlock())
          blocks.push(block.join('\n'));
        return blocks.join('\n');
      }),
    );
    const wrong = await setup.verikit
      .redeemProof(proofs[0]!, { phoneNumber: '+2348098765432' })
      .catch((error: unknown) => error);
    expectNoSecrets(
      [reads, streamed, wrong, await setup.snapshot()],
      // A token is `v2.` and its sealed part: neither may be found whole.
      [...proofs, ...proofs.map((token) => token.slice('v2.'.length)), bvn],
    );
    expectNoSecrets([reads, streamed, wrong], [phoneNumber]);
    expectNoSecrets(
      proofs.map((token) => Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')),
      [phoneNumber, phoneNumber.slice(1), bvn],
    );
  });
});
