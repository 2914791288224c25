import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createVerikit } from '@verikit/core';
import { silentLogger } from '@verikit/provider';
import { createTestProviderV1 } from '@verikit/testing';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { createFlowHandler } from '../create-flow-handler.js';
import { httpTestSecret, phoneNumber, webPathOf } from '../http.fixtures.js';
import { nodeRoutes, toNodeHandler } from './node-adapter.js';

const origin = 'https://app.example.com';
const clock = { now: () => 1e12 };
const webhookSecret = `whsec_${Buffer.from('node-routes-webhook-secret-0123').toString('base64')}`;
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/**
 * A server of the flow handler on an engine whose clock stands still: on the Web path, or on the Node adapter's own
 * path, where the requests it declines go to the Web path and are listed in `declined`.
 */
async function serve(path: 'node' | 'web', declined: string[] = []) {
  const verikit = createVerikit({
    provider: createTestProviderV1(),
    secret: httpTestSecret,
    clock,
  });
  const handler = createFlowHandler({
    verikit,
    cors: { origin, credentials: true },
    maxBodyBytes: 1024,
    maxWebhookBodyBytes: 1024,
    // The test double sends no webhooks: a parser of one's own turns the route on (it ignores every event).
    webhooks: { secret: webhookSecret, clock, parse: () => null },
    logger: silentLogger,
  });
  const web = toNodeHandler(webPathOf(handler));
  const fast = nodeRoutes(handler.routes);
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

/** Standard Webhooks headers signing `body` as message `id` at the engine's standing clock. */
function signed(id: string, body: string): Record<string, string> {
  const at = new Date(clock.now());
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(webhookSecret).sign(id, at, body),
  };
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
  // @hono/node-server gives every answer without a content type `text/plain` (a preflight's 204 too); the Node
  // adapter leaves a bodiless answer without one.
  const headers = [...response.headers].filter(
    ([name]) =>
      !['date', 'connection', 'keep-alive'].includes(name) && !(response.status === 204 && name === 'content-type'),
  );
  return {
    status: response.status,
    headers: headers.map(([name, value]) => `${name}: ${named(value)}`),
    body: named(await response.text()),
  };
}

describe("the Node adapter's own path for the route table (decisions 1320, 1510)", () => {
  it('is taken only for a handler made by createFlowHandler: a handler wrapping it has no route table', () => {
    const verikit = createVerikit({ provider: createTestProviderV1(), secret: httpTestSecret });
    const handler = createFlowHandler({ verikit });
    expect(handler.routes.routes.map((route) => route.path)).toEqual([
      '/flows',
      '/flows/:id',
      '/flows/:id/events',
      '/flows/:id/stream',
      '/flows/:id/proof',
    ]);
    expect('routes' in webPathOf(handler)).toBe(false);
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
      // The webhook route: no CORS header whatever the options, its own answers.
      { method: 'POST', path: '/webhooks', headers: { ...json, ...signed('msg_1', '{}') }, body: '{}' },
      { method: 'POST', path: '/webhooks', headers: { ...json, ...signed('msg_2', '{}') }, body: '{"x":1}' },
      { method: 'POST', path: '/webhooks', headers: json, body: '{}' },
      { method: 'POST', path: '/webhooks', headers: { ...json, ...signed('msg_3', '{}') }, body: 'x'.repeat(2048) },
      { method: 'GET', path: '/webhooks', headers: { origin } },
      { method: 'OPTIONS', path: '/webhooks', headers: { origin, 'access-control-request-method': 'POST' } },
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
    // The Node adapter answered all the others, 405s, preflights and webhooks included: a webhook passes its one route
    // matcher, never Hono's too (each start's answer differs by its flow, so they are not compared). It declines only
    // paths no route takes.
    const id = nodeFlow.id;
    expect(declined).toEqual([
      `GET /flows/${id}/nothing`,
      `POST /flows/${id}/constructor`,
      `GET /flows/${id}/__proto__/`,
    ]);
  });
});
