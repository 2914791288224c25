import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createVerikit } from '@verikit/core';
import { createTestProviderV1 } from '@verikit/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createFlowHandler } from './create-flow-handler.js';
import { httpTestSecret, phoneNumber, webPathOf } from './http.fixtures.js';
import { toNodeHandler } from './node-adapter.js';
import { nodeFlowRoutesOf } from './node-flow-routes.js';

const origin = 'https://app.example.com';
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/**
 * A server of the flow handler on an engine whose clock stands still: on the Web path, or on Node's fast path, where
 * the requests the fast path declines go to the Web path and are listed in `declined`.
 */
async function serve(path: 'node' | 'web', declined: string[] = []) {
  const verikit = createVerikit({
    provider: createTestProviderV1(),
    secret: httpTestSecret,
    clock: { now: () => 1e12 },
  });
  const handler = createFlowHandler({ verikit, cors: { origin, credentials: true }, maxBodyBytes: 1024 });
  const web = toNodeHandler(webPathOf(handler));
  const fast = nodeFlowRoutesOf(handler)!;
  const server = createServer((request, response) => {
    if (path === 'node' && fast(request, response)) return;
    if (path === 'node') declined.push(`${request.method} ${request.url}`);
    web(request, response);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(async () => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

interface Step {
  readonly method: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

/** Status, headers (but the connection's own) and body of one answer, the flow's id and secret named, not given. */
async function answerOf(url: string, step: Step, flow: { id: string; secret: string }) {
  const named = (text: string) => text.replaceAll(flow.id, '<id>').replaceAll(flow.secret, '<secret>');
  const fill = (text: string) => text.replaceAll('<id>', flow.id).replaceAll('<secret>', flow.secret);
  const response = await fetch(`${url}${fill(step.path)}`, {
    method: step.method,
    headers: Object.fromEntries(Object.entries(step.headers ?? {}).map(([name, value]) => [name, fill(value)])),
    ...(step.body === undefined ? {} : { body: step.body }),
  });
  const headers = [...response.headers].filter(([name]) => !['date', 'connection', 'keep-alive'].includes(name));
  return {
    status: response.status,
    headers: headers.map(([name, value]) => `${name}: ${named(value)}`),
    body: named(await response.text()),
  };
}

describe("toNodeHandler's fast path for the flow routes (decision 1320)", () => {
  it('is taken only for a handler made by createFlowHandler, and not with a webhook path below /flows', () => {
    const verikit = createVerikit({ provider: createTestProviderV1(), secret: httpTestSecret });
    const handler = createFlowHandler({ verikit });
    expect(nodeFlowRoutesOf(handler)).toBeTypeOf('function');
    expect(nodeFlowRoutesOf(webPathOf(handler))).toBeUndefined();
    const webhooks = { secret: 'w'.repeat(32), parse: () => ({ kind: 'none' as const }) };
    const below = createFlowHandler({ verikit, webhookPath: '/flows/hooks', webhooks } as never);
    expect(nodeFlowRoutesOf(below)).toBeUndefined();
  });

  it('answers every route, success or error, exactly as the Web path does: status, headers and body', async () => {
    const declined: string[] = [];
    const [node, web] = [await serve('node', declined), await serve('web')];
    const json = { 'content-type': 'application/json', origin };
    const owner = { 'verikit-flow-secret': '<secret>', origin };
    const steps: Step[] = [
      { method: 'GET', path: '/flows/<id>', headers: owner },
      { method: 'GET', path: '/flows/<id>?lang=fr', headers: { ...owner, origin: 'https://evil.example' } },
      { method: 'GET', path: '/flows/<id>' },
      { method: 'GET', path: '/flows/not-an-id', headers: owner },
      {
        method: 'POST',
        path: '/flows/<id>/events',
        headers: { ...owner, ...json },
        body: '{"type":"submit-code","code":"000000"}',
      },
      { method: 'POST', path: '/flows/<id>/events', headers: { ...owner, 'content-type': 'text/plain' }, body: '{}' },
      { method: 'POST', path: '/flows/<id>/events', headers: { ...owner, ...json }, body: 'x'.repeat(2048) },
      { method: 'POST', path: '/flows/<id>/events', headers: { ...owner, ...json }, body: '{"type":' },
      { method: 'POST', path: '/flows/<id>/events', headers: { ...owner, ...json }, body: '{"type":"fly"}' },
      { method: 'POST', path: '/flows/<id>/proof', headers: owner },
      { method: 'PUT', path: '/flows/<id>', headers: owner },
      { method: 'OPTIONS', path: '/flows/<id>/events', headers: { origin, 'access-control-request-method': 'POST' } },
      { method: 'GET', path: '/flows/<id>/nothing', headers: owner },
      { method: 'POST', path: '/flows/<id>/constructor', headers: owner },
      { method: 'GET', path: '/flows/<id>/__proto__/', headers: owner },
      { method: 'POST', path: '/flows', headers: json, body: '{}' },
      { method: 'POST', path: '/flows', headers: { ...json, 'idempotency-key': 'bad key' }, body: '{}' },
    ];
    const start = async (url: string) => {
      const body = JSON.stringify({ kind: 'phone', phoneNumber });
      const response = await fetch(`${url}/flows`, { method: 'POST', headers: json, body });
      const started = (await response.json()) as { id: string; flowSecret: string };
      return { id: started.id, secret: started.flowSecret };
    };
    const [nodeFlow, webFlow] = [await start(node), await start(web)];
    for (const step of steps) {
      const [fromNode, fromWeb] = [await answerOf(node, step, nodeFlow), await answerOf(web, step, webFlow)];
      expect({ step, ...fromNode }).toEqual({ step, ...fromWeb });
    }
    // The fast path answered all the others (each start's answer differs by its flow, so they are not compared).
    const id = nodeFlow.id;
    expect(declined).toEqual([
      `PUT /flows/${id}`,
      `OPTIONS /flows/${id}/events`,
      `GET /flows/${id}/nothing`,
      `POST /flows/${id}/constructor`,
      `GET /flows/${id}/__proto__/`,
    ]);
  });
});
