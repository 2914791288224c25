import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { build } from 'esbuild';
import { toNodeHandler as webToNodeHandler } from 'better-auth/node';
import { toNodeHandler } from '@verikit/better-auth/node';
import { createGatewayProvider } from '@verikit/gateway';
import { generateWebhookSecret, startGatewayFake, type GatewayFake } from '@verikit/gateway/fake';
import { compressedPage } from '@verikit/example-page-parts/compressed-page';
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
 * gateway provider; Better Auth with the verikit plugin at `/api/auth`; the account at `/api/account`; the page at `/`
 * (one compressed answer).
 */
export async function startExample(port = 3000): Promise<ExampleServer> {
  const [html, script, css] = await Promise.all([
    readFile(new URL('index.html', webDir), 'utf8'),
    bundlePage(),
    readFile(createRequire(import.meta.url).resolve('@verikit/example-page-parts/page.css'), 'utf8'),
  ]);
  // One answer (decision 0730, as the other examples): the script and the look inlined, compressed once. On Chrome's
  // "Slow 3G" profile a second request for the script would cost another 2 s round trip before the form shows.
  const page = compressedPage(
    html
      .replace('/* page.css */', () => css.replace(/<\/style/gi, '<\\/style'))
      .replace(
        '<script type="module" src="/main.js"></script>',
        () => `<script type="module">${script.replace(/<\/script/gi, '<\\/script')}</script>`,
      ),
  );
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
  const { auth, identities } = await createAuth({
    provider,
    baseURL: url,
    webhookSecret,
    // An example's secrets: a real app reads its own from the environment.
    verikitSecret: 'example-verikit-secret-0123456789abcdef',
    authSecret: 'example-better-auth-secret-0123456789abcdef',
  });
  const authHandler = toNodeHandler(auth);
  // The page and the account route, written against Web Request/Response; Better Auth's node adapter serves them.
  const app = webToNodeHandler(async (request: Request) => {
    const path = new URL(request.url).pathname;
    if (path === '/' && (request.method === 'GET' || request.method === 'HEAD')) return page(request);
    // The app's own route: who is signed in and what is attached, so that a reload shows it (the server's word).
    if (path === '/api/account' && request.method === 'GET') {
      const session = await auth.api.getSession({ headers: request.headers });
      if (session === null) return Response.json({ error: 'signed_out' }, { status: 401 });
      const user = session.user as { id: string; email: string; phoneNumber?: string | null };
      // A phone user's email is the plugin's undeliverable placeholder (`…@phone.invalid`): not shown as theirs.
      const email = user.email.endsWith('@phone.invalid') ? null : user.email;
      return Response.json({ email, phoneNumber: user.phoneNumber ?? null, identities: await identities(user.id) });
    }
    return new Response('not found', { status: 404, headers: { 'content-type': 'text/plain' } });
  });
  server.on('request', (request, response) => {
    const path = new URL(request.url ?? '/', url).pathname;
    if (path.startsWith('/api/auth/')) return void authHandler(request, response);
    void app(request, response);
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
