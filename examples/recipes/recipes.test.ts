import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createVerikit, type Verikit } from '@verikit/core';
import { createGatewayWebhookParser } from '@verikit/gateway';
import { startGatewayFake } from '@verikit/gateway/fake';
import { createFlowHandler, toNodeHandler } from '@verikit/http';
import { createTestProviderV1 } from '@verikit/testing';
import express, { type Express } from 'express';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createExpressApp } from './express-app.js';
import { createFastifyApp } from './fastify-app.js';

const secret = 'an-engine-secret-of-32-characters-or-more';
const webhookSecret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const json = (body: unknown, flowSecret?: string) => ({
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    // The flow secret the start answered, as @verikit/client sends it (docs/security.md).
    ...(flowSecret === undefined ? {} : { 'verikit-flow-secret': flowSecret }),
  },
  body: JSON.stringify(body),
});

/** A phone verification through the flow API at `origin`, with the test double's code, and one app route. */
async function verifyOver(origin: string): Promise<void> {
  const started = await fetch(`${origin}/api/verify/flows`, json({ kind: 'phone', phoneNumber: '+2348012345678' }));
  expect(started.status).toBe(201);
  const { id, flowSecret } = (await started.json()) as { id: string; flowSecret: string };
  const events = `${origin}/api/verify/flows/${id}/events`;
  // Without the flow secret the flow does not exist to the caller.
  expect((await fetch(events, json({ type: 'submit-code', code: '123456' }))).status).toBe(404);
  const wrong = await fetch(events, json({ type: 'submit-code', code: '000000' }, flowSecret));
  expect(((await wrong.json()) as { status: string }).status).toBe('awaiting-code');
  const right = await fetch(events, json({ type: 'submit-code', code: '123456' }, flowSecret));
  expect(((await right.json()) as { status: string }).status).toBe('verified');
  // An unsigned webhook is refused: the route is there, and it checks signatures.
  expect((await fetch(`${origin}/api/verify/webhooks`, json({ event: 'USSD_VERIFICATION' }))).status).toBe(401);
  // The app's own route still parses its JSON body.
  const note = await fetch(`${origin}/api/notes`, json({ text: 'hi' }));
  expect(note.status).toBe(201);
  expect(await note.json()).toEqual({ saved: { text: 'hi' } });
}

// The test double with the gateway's webhook parser: a provider that sends webhooks, so the route is there.
const engine = (): Verikit =>
  createVerikit({ provider: createTestProviderV1({ webhooks: { parse: createGatewayWebhookParser() } }), secret });

describe('docs/http.md recipes', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (server === undefined ? resolve(undefined) : server.close(resolve)));
    server = undefined;
    vi.unstubAllEnvs();
  });

  it('Express: the flow API and the webhook route beside the app routes', async () => {
    server = createServer(createExpressApp({ verikit: engine(), webhookSecret }));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    await verifyOver(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });

  it('Fastify: the flow API in its own scope, the app routes keep their parsing', async () => {
    const app = await createFastifyApp({ verikit: engine(), webhookSecret });
    try {
      await verifyOver(await app.listen({ port: 0, host: '127.0.0.1' }));
    } finally {
      await app.close();
    }
  });

  it('Next.js App Router: the route file exports GET, POST and OPTIONS that serve the flow API', async () => {
    const fake = await startGatewayFake();
    try {
      vi.stubEnv('GATEWAY_API_KEY', fake.apiKey);
      vi.stubEnv('GATEWAY_BASE_URL', fake.baseUrl);
      vi.stubEnv('GATEWAY_USSD_BASE_URL', fake.ussdBaseUrl);
      vi.stubEnv('GATEWAY_SENDER', 'Acme');
      vi.stubEnv('VERIKIT_SECRET', secret);
      vi.stubEnv('VERIKIT_WEBHOOK_SECRET', fake.webhookSecret);
      const route = await import('./next/app/api/verify/[...path]/route.js');
      expect([route.runtime, route.dynamic]).toEqual(['nodejs', 'force-dynamic']);
      const origin = 'https://app.example.com';
      const started = await route.POST(
        new Request(`${origin}/api/verify/flows`, {
          ...json({ kind: 'phone', phoneNumber: '+2348012345678' }),
          headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.7' },
        }),
      );
      expect(started.status).toBe(201);
      const { id, flowSecret } = (await started.json()) as { id: string; flowSecret: string };
      const code = fake.lastCode('+2348012345678')!;
      const checked = await route.POST(
        new Request(`${origin}/api/verify/flows/${id}/events`, json({ type: 'submit-code', code }, flowSecret)),
      );
      expect(((await checked.json()) as { status: string }).status).toBe('verified');
      const read = await route.GET(
        new Request(`${origin}/api/verify/flows/${id}`, { headers: { 'verikit-flow-secret': flowSecret } }),
      );
      expect(((await read.json()) as { status: string }).status).toBe('verified');
      expect((await route.OPTIONS(new Request(`${origin}/api/verify/flows`, { method: 'OPTIONS' }))).status).toBe(204);
    } finally {
      await fake.close();
    }
  });

  it('docs/http.md shows each recipe file exactly as it is', () => {
    const docs = readFileSync(new URL('../../docs/http.md', import.meta.url), 'utf8');
    for (const file of [
      'express-app.ts',
      'fastify-app.ts',
      'next/verikit.ts',
      'next/app/api/verify/[...path]/route.ts',
    ]) {
      const source = readFileSync(new URL(file, import.meta.url), 'utf8');
      expect(docs, file).toContain(
        `[examples/recipes/${file}](../examples/recipes/${encodeURI(file)}):\n\n\`\`\`ts\n${source}\`\`\``,
      );
    }
  });
});

describe('Express mistakes answer with their fix (issue 35)', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  });
  const listen = async (app: Express): Promise<string> => {
    const server = createServer(app);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const errorOf = async (response: Response) =>
    ((await response.json()) as { error: { code: string; field?: string; message: string } }).error;

  it('express.json() in front: a 400 that says a body parser read the body first, and to mount verikit before it', async () => {
    const verify = toNodeHandler(
      createFlowHandler({ verikit: engine(), basePath: '/api/verify', webhooks: { secret: webhookSecret } }),
    );
    const app = express();
    app.use(express.json());
    app.use('/', (request, response, next) => {
      if (request.path.startsWith('/api/verify/')) void verify(request, response);
      else next();
    });
    const origin = await listen(app);
    const started = await fetch(`${origin}/api/verify/flows`, json({ kind: 'phone', phoneNumber: '+2348012345678' }));
    expect(started.status).toBe(400);
    const error = await errorOf(started);
    expect(error).toMatchObject({ code: 'invalid_input', field: 'body' });
    expect(error.message).toMatch(/body parser \(express\.json\(\).*Mount verikit before it/);
    // The webhook route says the same (the signature covers the bytes, which the parser consumed).
    const webhook = await fetch(`${origin}/api/verify/webhooks`, json({ event: 'USSD_VERIFICATION' }));
    expect(webhook.status).toBe(400);
    expect(((await webhook.json()) as { error: { message: string } }).error.message).toMatch(/express\.json\(\)/);
  });

  it("app.use('/api/verify', …) strips the mount path: a 404 that names basePath and the way to mount", async () => {
    const verify = toNodeHandler(createFlowHandler({ verikit: engine(), basePath: '/api/verify' }));
    const app = express();
    app.use('/api/verify', (request, response) => void verify(request, response));
    const origin = await listen(app);
    const started = await fetch(`${origin}/api/verify/flows`, json({ kind: 'phone', phoneNumber: '+2348012345678' }));
    expect(started.status).toBe(404);
    const error = await errorOf(started);
    expect(error.code).toBe('route_not_found');
    expect(error.message).toContain("below basePath '/api/verify'");
    expect(error.message).toContain("app.use('/api/verify', handler)");
    // Mounted at a path basePath does not name: the 404 says to set basePath.
    const unnamed = toNodeHandler(createFlowHandler({ verikit: engine() }));
    const other = express();
    other.use((request, response) => void unnamed(request, response));
    const otherOrigin = await listen(other);
    const below = await fetch(
      `${otherOrigin}/api/verify/flows`,
      json({ kind: 'phone', phoneNumber: '+2348012345678' }),
    );
    expect(below.status).toBe(404);
    expect((await errorOf(below)).message).toContain('set basePath to the path the handler is mounted at');
    // A path no route takes under any base path keeps the plain message, and never echoes the path.
    const nowhere = await fetch(`${otherOrigin}/api/verify/elsewhere`);
    expect((await errorOf(nowhere)).message).toBe('no route matches this path');
  });
});
