import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { africasTalkingRecipientStatus } from './index.js';
import { startAfricasTalkingFake, type AfricasTalkingFake } from './fake/index.js';
import { ussdCallback } from './ussd-callback.fixtures.js';

const page = readFileSync(new URL('../../../docs/providers/africastalking.md', import.meta.url), 'utf8');
const fixture = readFileSync(new URL('./ussd-callback.fixtures.ts', import.meta.url), 'utf8');

describe('docs/providers/africastalking.md', () => {
  it('shows the USSD callback exactly as the file this test runs', () => {
    const snippet = fixture.slice(fixture.indexOf('// snippet:start\n') + 17, fixture.indexOf('// snippet:end'));
    expect(page).toContain(snippet.trim());
  });

  it('lists every documented recipient status code', () => {
    for (const [code, name] of Object.entries(africasTalkingRecipientStatus))
      expect(page).toContain(`| ${code} ${name} |`);
  });
});

describe('the documented USSD callback, dialled by the fake over node:http', () => {
  let server: Server;
  let fake: AfricasTalkingFake;
  beforeAll(async () => {
    server = createServer(async (incoming, outgoing) => {
      const chunks: Buffer[] = [];
      for await (const chunk of incoming) chunks.push(chunk as Buffer);
      const request = new Request(`http://127.0.0.1${incoming.url}`, {
        method: incoming.method!,
        headers: incoming.headers as Record<string, string>,
        ...(incoming.method === 'POST' ? { body: Buffer.concat(chunks) } : {}),
      });
      const response = await ussdCallback(request, incoming.socket.remoteAddress);
      outgoing.writeHead(response.status, Object.fromEntries(response.headers));
      outgoing.end(await response.text());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    fake = await startAfricasTalkingFake({
      callbackUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/ussd`,
    });
  });
  afterAll(async () => {
    await fake.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it('asks, then thanks the number that dialled', async () => {
    const first = await fake.dial({ phoneNumber: '+254711000160', code: fake.serviceCode });
    expect(first).toMatchObject({ kind: 'CON', screen: 'Reply 1 to confirm this is your number' });
    expect(await fake.reply(first.sessionId, '1')).toMatchObject({ kind: 'END', screen: 'Thank you' });
  });

  it('answers a malformed session 400, so Africa’s Talking ends it', async () => {
    const port = (server.address() as AddressInfo).port;
    const response = await fetch(`http://127.0.0.1:${port}/ussd`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'sessionId=x',
    });
    expect(response.status).toBe(400);
  });
});
