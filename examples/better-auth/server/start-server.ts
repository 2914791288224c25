import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { build } from 'esbuild';
import { toNodeHandler } from '@verikit/better-auth/node';
import { createGatewayProvider } from '@verikit/gateway';
import { generateWebhookSecret, startGatewayFake, type GatewayFake } from '@verikit/gateway/fake';
import { createAuth } from './auth.js';

/** The example running: its URL, the sandbox a test reads codes from, and how to stop both. */
export interface ExampleServer {
  readonly url: string;
  readonly sandbox: GatewayFake;
  close(): Promise<void>;
}

const webDir = new URL('../web/', import.meta.url);

/** The page's script, bundled (the workspace's TypeScript source, through the `@verikit/source` condition). */
async function bundlePage(): Promise<string> {
  const result = await build({
    entryPoints: [new URL('main.ts', webDir).pathname],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    conditions: ['@verikit/source'],
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

/**
 * Starts the example on `port` (0: any free one): the gateway sandbox in-process, talked to over HTTP by the
 * gateway provider; Better Auth with the verikit plugin at `/api/auth`; the page at `/`.
 */
export async function startExample(port = 3000): Promise<ExampleServer> {
  const [page, script] = await Promise.all([readFile(new URL('index.html', webDir), 'utf8'), bundlePage()]);
  const server = createServer();
  const actualPort = await listen(server, port);
  const url = `http://localhost:${actualPort}`;
  const webhookSecret = generateWebhookSecret();
  const sandbox = await startGatewayFake({ webhookUrl: `${url}/api/auth/verikit/webhooks`, webhookSecret });
  const provider = createGatewayProvider({
    apiKey: sandbox.apiKey,
    baseUrl: sandbox.baseUrl,
    ussdBaseUrl: sandbox.ussdBaseUrl,
    defaultSender: 'Acme',
  });
  const { auth } = await createAuth({
    provider,
    baseURL: url,
    webhookSecret,
    // An example's secrets: a real app reads its own from the environment.
    verikitSecret: 'example-verikit-secret-0123456789abcdef',
    authSecret: 'example-better-auth-secret-0123456789abcdef',
  });
  const authHandler = toNodeHandler(auth);
  server.on('request', (request, response) => {
    const path = new URL(request.url ?? '/', url).pathname;
    if (path.startsWith('/api/auth/')) return void authHandler(request, response);
    if (path === '/main.js') {
      response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(script);
    } else if (path === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    } else {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  return {
    url,
    sandbox,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await sandbox.close();
    },
  };
}
