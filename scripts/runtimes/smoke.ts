/**
 * The smoke run of the flow handler, the engine on its in-memory store, the client and the test provider, as one
 * function with no Node-only API of its own: `runtimes.test.ts` bundles it and runs it on Bun, Deno and workerd.
 */
import { createFlowClient } from '@verikit/client';
import { createVerikit } from '@verikit/core';
import { createFlowHandler } from '@verikit/http';
import { createTestProviderV1 } from '@verikit/testing';

const phoneNumber = '+2348012345678';

/** A phone flow started and verified through the client and the handler, its proof redeemed; what it ended with. */
export async function smoke(): Promise<string> {
  const provider = createTestProviderV1();
  const verikit = createVerikit({ provider, secret: 'runtime-smoke-secret-0123456789abcdef' });
  const handler = createFlowHandler({ verikit });
  const client = createFlowClient({
    baseUrl: 'http://smoke.invalid/',
    fetch: (input, init) => handler(new Request(input, init)),
    storage: false,
    ownerStorage: false,
  });
  const started = await client.start({ kind: 'phone', phoneNumber });
  const wrong = await client.send(started.id, { type: 'submit-code', code: '000000' });
  const right = await client.send(started.id, { type: 'submit-code', code: provider.lastCode(phoneNumber)! });
  const { token } = await client.proof(started.id);
  const verification = await verikit.redeemProof(token, { phoneNumber });
  const again = await verikit.redeemProof(token, { phoneNumber }).catch((error: { code?: string }) => error.code);
  return JSON.stringify({
    started: started.status,
    wrong: wrong.status,
    right: right.status,
    verified: verification.phoneNumber,
    replay: again,
  });
}
