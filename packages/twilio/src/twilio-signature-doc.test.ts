import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTwilioSignatureVerifier } from './index.js';

// The snippet of docs/providers/twilio.md ("Callbacks: X-Twilio-Signature"), run by a server behind a "proxy": it
// sees http://127.0.0.1:<port>/twilio/status?flow=abc while Twilio signed https://app.example.com/twilio/status?flow=abc.
// The signature is twilio-node's own, from the conformance fixture (the case "same URL, https, no port").

const page = readFileSync(new URL('../../../docs/providers/twilio.md', import.meta.url), 'utf8');
const fixture = JSON.parse(
  readFileSync(new URL('../conformance/twilio-signature.fixture.json', import.meta.url), 'utf8'),
) as { authToken: string; cases: Array<{ name: string; signedUrl: string; body: string; signature: string }> };
const signed = fixture.cases.find((each) => each.name === 'same URL, https, no port')!;

/** The documented check, as the page shows it; `headers` and `rawBody` are the request's. */
function documentedCheck(headers: Record<string, string>, rawBody: string): boolean {
  // snippet:start
  const verify = createTwilioSignatureVerifier({ publicUrl: 'https://app.example.com' }); // TWILIO_AUTH_TOKEN
  const ok = verify({ path: '/twilio/status?flow=abc', headers, body: rawBody });
  // snippet:end
  return ok;
}

const server = createServer(async (request, response) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
  const ok = documentedCheck(headers, Buffer.concat(chunks).toString('utf8'));
  response.writeHead(ok ? 204 : 403).end();
});
let url = '';
beforeAll(async () => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/twilio/status?flow=abc`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
afterEach(() => {
  vi.unstubAllEnvs();
});

const post = (body: string, signature?: string) =>
  fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(signature === undefined ? {} : { 'x-twilio-signature': signature }),
    },
    body,
  });

describe('docs/providers/twilio.md: the X-Twilio-Signature snippet', () => {
  it('is on the page exactly as this test runs it, with its import', () => {
    const source = readFileSync(new URL(import.meta.url), 'utf8');
    const start = source.indexOf('// snippet:start\n') + 17;
    const snippet = source.slice(start, source.indexOf('  // snippet:end')).replace(/^ {2}/gm, '');
    expect(page).toContain(`import { createTwilioSignatureVerifier } from '@verikit/twilio';\n\n${snippet}`);
    expect(signed.signedUrl).toBe('https://app.example.com/twilio/status?flow=abc');
  });

  it('takes a callback Twilio signed for the public URL, though the server sees another', async () => {
    vi.stubEnv('TWILIO_AUTH_TOKEN', fixture.authToken);
    expect((await post(signed.body, signed.signature)).status).toBe(204);
  });

  it('refuses it changed, unsigned, or checked with another auth token', async () => {
    vi.stubEnv('TWILIO_AUTH_TOKEN', fixture.authToken);
    expect((await post(signed.body.replace('completed', 'failed'), signed.signature)).status).toBe(403);
    expect((await post(signed.body)).status).toBe(403);
    vi.stubEnv('TWILIO_AUTH_TOKEN', 'another-auth-token-0123456789abcdef');
    expect((await post(signed.body, signed.signature)).status).toBe(403);
  });
});
