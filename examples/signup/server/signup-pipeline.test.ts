import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createVerikit } from '@verikit/core';
import { toNodeHandler } from '@verikit/http';
import { createTestProviderV1, freshPhoneNumber } from '@verikit/testing';
import { AccountStore } from './accounts.js';
import { createSignupApp } from './create-app.js';
import { PageFiles } from './page-files.js';

// The signup pipeline as issue 16 tried it: a slow BVN step, and one verification used for two accounts.
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0)) await step();
});

async function pipeline() {
  let now = Date.UTC(2026, 0, 1, 9);
  const provider = createTestProviderV1();
  const verikit = createVerikit({
    provider,
    secret: 'signup-pipeline-secret-0123456789-abcdef',
    clock: { now: () => now },
    guard: false,
  });
  const pageDir = await mkdtemp(join(tmpdir(), 'verikit-signup-pipeline-'));
  await writeFile(join(pageDir, 'index.html'), '<!doctype html><title>signup</title>');
  const app = createSignupApp({
    verikit,
    accounts: new AccountStore(),
    webhookSecret: undefined,
    page: await PageFiles.load(pageDir),
  });
  const server = createServer(toNodeHandler((request, env) => Promise.resolve(app.fetch(request, env))));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  cleanup.push(async () => {
    server.closeAllConnections();
    server.close();
    await rm(pageDir, { recursive: true, force: true });
  });
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  /** Starts, verifies and proves a flow over the flow API, as the page does. */
  const prove = async (input: Record<string, string>, codeTo: string): Promise<string> => {
    const started = (await (await post('/api/verify/flows', input)).json()) as { id: string; flowSecret: string };
    const owned = { 'verikit-flow-secret': started.flowSecret };
    await post(
      `/api/verify/flows/${started.id}/events`,
      { type: 'submit-code', code: provider.lastCode(codeTo) },
      owned,
    );
    const proof = await post(`/api/verify/flows/${started.id}/proof`, {}, owned);
    expect(proof.status).toBe(201);
    return ((await proof.json()) as { token: string }).token;
  };
  return { post, prove, advance: (ms: number) => (now += ms) };
}

describe('the signup pipeline', () => {
  it('survives 15 minutes on the BVN step; a BVN refused first keeps the phone proof', async () => {
    const { post, prove, advance } = await pipeline();
    const phoneNumber = freshPhoneNumber();
    const phoneProof = await prove({ kind: 'phone', phoneNumber }, phoneNumber);
    advance(15 * 60_000);
    const bvn = '22222222222';
    const forged = await post('/api/signup', { phoneNumber, bvn, phoneProof, bvnProof: `v2.${'A'.repeat(80)}` });
    expect(forged.status).toBe(403);
    const bvnProof = await prove({ kind: 'identity', idType: 'bvn', number: bvn }, '+2348000000000');
    const created = await post('/api/signup', { phoneNumber, bvn, phoneProof, bvnProof });
    expect(created.status).toBe(201);
  });

  it('one account per verified BVN: a second verification of the same BVN opens no second account', async () => {
    const { post, prove } = await pipeline();
    const bvn = '33333333333';
    const first = freshPhoneNumber();
    const second = freshPhoneNumber();
    const one = await post('/api/signup', {
      phoneNumber: first,
      bvn,
      phoneProof: await prove({ kind: 'phone', phoneNumber: first }, first),
      bvnProof: await prove({ kind: 'identity', idType: 'bvn', number: bvn }, '+2348000000000'),
    });
    expect(one.status).toBe(201);
    const two = await post('/api/signup', {
      phoneNumber: second,
      bvn,
      phoneProof: await prove({ kind: 'phone', phoneNumber: second }, second),
      bvnProof: await prove({ kind: 'identity', idType: 'bvn', number: bvn }, '+2348000000000'),
    });
    expect(two.status).toBe(409);
    expect(((await two.json()) as { error: { field: string } }).error.field).toBe('bvn');
  });
});
