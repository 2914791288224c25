import { createServer } from 'node:http';
import { once } from 'node:events';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { build } from 'vite';
import { createAfricasTalkingProvider, createCallbackAllowList } from '@verikit/africastalking';
import { startAfricasTalkingFake, type AfricasTalkingFake } from '@verikit/africastalking/fake';
import { createVerikit, type Clock, type Verikit } from '@verikit/core';
import { createDialInHandler, createFlowHandler, toNodeHandler } from '@verikit/http';
import { loadPage } from './page.js';

/** The example running: its URL, the engine, and the fake whose `dial()` plays the user's phone. */
export interface DialInExample {
  readonly url: string;
  readonly verikit: Verikit;
  readonly fake: AfricasTalkingFake;
  close(): Promise<void>;
}

/** Builds the React page with Vite (the verikit packages read from their TypeScript sources) into a fresh folder. */
async function buildPage(): Promise<string> {
  const outDir = await mkdtemp(join(tmpdir(), 'verikit-dial-in-'));
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({
      root: fileURLToPath(new URL('./web/', import.meta.url)),
      configFile: false,
      logLevel: 'warn',
      plugins: [react()],
      resolve: { conditions: ['@verikit/source', 'browser', 'module', 'import', 'default'] },
      build: { outDir, emptyOutDir: true, sourcemap: false },
    });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
  return outDir;
}

/**
 * Starts the example on 127.0.0.1: the page at `/` (one compressed answer), the flow API at `/api/verify`, and the USSD callback at
 * `/ussd`, which the Africa's Talking fake posts sessions to. The allow-list names the loopback address the fake
 * calls from; in production it names Africa's Talking's addresses (docs/security.md). `clock` is the engine's (the
 * tests move it on to reach a code's expiry).
 */
export async function startDialInExample(port = 0, options: { clock?: Clock } = {}): Promise<DialInExample> {
  const [fake, pageDir] = await Promise.all([startAfricasTalkingFake(), buildPage()]);
  const provider = createAfricasTalkingProvider(fake.settings);
  const verikit = createVerikit({
    provider,
    secret: process.env.VERIKIT_SECRET ?? 'dial-in-example-secret-0123456789',
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  const flows = createFlowHandler({ verikit, basePath: '/api/verify' });
  const dialIn = createDialInHandler({
    verikit,
    allowList: createCallbackAllowList(['127.0.0.1', '::1']),
    appName: 'verikit dial-in example',
  });
  const page = await loadPage(pageDir);
  const handler = async (request: Request, env?: unknown): Promise<Response> => {
    const { pathname } = new URL(request.url);
    if (pathname === '/ussd') return dialIn(request, env);
    if (pathname.startsWith('/api/verify/')) return flows(request, env);
    if (pathname === '/' && (request.method === 'GET' || request.method === 'HEAD')) return page(request);
    return new Response(null, { status: 404 });
  };
  const server = createServer(toNodeHandler(handler)).listen(port, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.setCallbackUrl(`${url}/ussd`);
  return {
    url,
    verikit,
    fake,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await fake.close();
    },
  };
}
