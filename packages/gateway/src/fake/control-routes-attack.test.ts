import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayFake, type GatewayFake } from './start-gateway-fake.js';

let fake: GatewayFake;
beforeAll(async () => {
  fake = await startGatewayFake({ apiKey: 'control-attack-key' });
});
afterAll(() => fake.close());

/** A raw request to the fake, with the `Host` and `Origin` an attacker's page would make the browser send. */
function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      { host: '127.0.0.1', port: fake.port, method, path, headers: { host: `127.0.0.1:${fake.port}`, ...headers } },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

async function pendingSession(phoneNumber: string) {
  const started = await fetch(`${fake.ussdBaseUrl}/messagingserv/gateway/api/v1/ussd/initiate-verification`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', apikey: fake.apiKey },
    body: JSON.stringify({ phoneNumber }),
  });
  expect(started.status).toBe(200);
}

describe("the fake's control endpoints have the inbox's protections", () => {
  it('attacker: a cross-site text/plain POST cannot dial a pending session (403), and the session stays pending', async () => {
    await pendingSession('+2348031119001');
    const dial = JSON.stringify({ phoneNumber: '+2348031119001' });
    const crossSite = await send(
      'POST',
      '/__sandbox/ussd/dial',
      { 'content-type': 'text/plain', origin: 'https://evil.example' },
      dial,
    );
    expect(crossSite.status).toBe(403);
    const sessions = (await (await fetch(`${fake.url}/__sandbox/ussd/sessions`)).json()) as {
      sessions: Array<{ phoneNumber: string; status: string }>;
    };
    expect(sessions.sessions.find((session) => session.phoneNumber === '+2348031119001')?.status).toBe('pending');
    // Without an Origin (a test, curl) or from the fake's own origin, the dial goes through.
    const own = await send(
      'POST',
      '/__sandbox/ussd/dial',
      { 'content-type': 'application/json', origin: `http://127.0.0.1:${fake.port}` },
      dial,
    );
    expect(own.status).toBe(202);
  });

  it('attacker: a page rebinding its DNS name to 127.0.0.1 reads no code (foreign Host: 403)', async () => {
    await pendingSession('+2348031119002');
    for (const path of ['/__sandbox/outbox', '/__sandbox/ussd/sessions', '/__fake/outbox', '/__sandbox/health']) {
      const rebound = await send('GET', path, { host: `evil.example:${fake.port}` });
      expect([path, rebound.status, rebound.body]).toEqual([
        path,
        403,
        JSON.stringify({ error: 'The control endpoints answer on 127.0.0.1 only.' }),
      ]);
    }
    for (const host of [`localhost:${fake.port}`, `[::1]:${fake.port}`, `127.0.0.1:${fake.port}`])
      expect((await send('GET', '/__sandbox/outbox', { host })).status).toBe(200);
    expect((await send('POST', '/__sandbox/reset', { origin: 'null' })).status).toBe(403);
    expect((await send('DELETE', '/__sandbox/outbox', { host: `evil.example:${fake.port}` })).status).toBe(403);
  });
});
