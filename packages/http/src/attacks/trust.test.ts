import { afterEach, expect, it } from 'vitest';
import { createTestProviderV1 } from '@verikit/testing';
import { createVerikit, type FlowView } from '@verikit/core';
import { createFlowHandler } from '../create-flow-handler.js';
import { clientAddressKey } from '../routes/flow-routes.js';
import {
  describeAdapters,
  httpTestSecret,
  phoneNumber,
  postJson,
  setupHttp,
  type HttpSetup,
} from '../http.fixtures.js';

// Issue 16, tried as an attacker: each test fails without its fix. Flows run with the default
// options (the flow secret required), unlike the older tests' opt-out.
let setup: HttpSetup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

type Started = FlowView & { flowSecret: string };

async function startAs(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Started> {
  const response = await postJson(`${url}/flows`, body, headers);
  expect(response.status).toBe(201);
  return (await response.json()) as Started;
}

async function verify(started: Started): Promise<void> {
  const response = await postJson(
    `${setup!.url}/flows/${started.id}/events`,
    { type: 'submit-code', code: setup!.provider.lastCode(phoneNumber) },
    { 'verikit-flow-secret': started.flowSecret },
  );
  expect(((await response.json()) as FlowView).status).toBe('verified');
}

describeAdapters('finding 1: the flow id is no credential', () => {
  it('without the flow secret, read, stream, events and proof answer exactly as for an unknown flow; the secret never reaches a log', async () => {
    const lines: unknown[] = [];
    const logger = { debug() {}, info: (...line: unknown[]) => lines.push(line), warn() {}, error() {} };
    setup = await setupHttp({ requireFlowSecret: true }, { logger });
    const started = await startAs(setup.url, { kind: 'phone', phoneNumber });
    expect(started.flowSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await verify(started);
    const unknownId = 'A'.repeat(22);
    const answers = async (id: string, secret?: string) => {
      const headers: Record<string, string> = secret === undefined ? {} : { 'verikit-flow-secret': secret };
      const calls = [
        fetch(`${setup!.url}/flows/${id}`, { headers }),
        fetch(`${setup!.url}/flows/${id}/stream`, { headers }),
        postJson(`${setup!.url}/flows/${id}/events`, { type: 'cancel' }, headers),
        postJson(`${setup!.url}/flows/${id}/proof`, {}, headers),
      ];
      return Promise.all((await Promise.all(calls)).map(async (r) => `${r.status} ${await r.text()}`));
    };
    const unknown = await answers(unknownId);
    expect(unknown[0]).toMatch(/^404 /);
    expect(await answers(started.id)).toEqual(unknown);
    expect(await answers(started.id, 'x'.repeat(43))).toEqual(unknown);
    // The secret of one flow opens no other.
    const other = await startAs(setup.url, { kind: 'ussd', phoneNumber: '+2348098765432' });
    expect(await answers(other.id, started.flowSecret)).toEqual(unknown);
    // With it, the proof is issued, and its token names no flow.
    const proof = await postJson(
      `${setup.url}/flows/${started.id}/proof`,
      {},
      { 'verikit-flow-secret': started.flowSecret },
    );
    const { token } = (await proof.json()) as { token: string };
    expect(Buffer.from(token.slice(3), 'base64url').toString('latin1')).not.toContain(started.id);
    const owned = { 'verikit-flow-secret': started.flowSecret };
    const view = await (await fetch(`${setup.url}/flows/${started.id}`, { headers: owned })).text();
    expect(view).not.toContain(started.flowSecret);
    expect(JSON.stringify(lines)).not.toContain(started.flowSecret);
    expect(JSON.stringify(await setup.snapshot())).not.toContain(started.flowSecret);
  });
});

describeAdapters('finding 2: one verification opens one account', () => {
  it('after one redeem, no further proof is issued, and a second proof issued before it is refused', async () => {
    setup = await setupHttp({ requireFlowSecret: true });
    const started = await startAs(setup.url, { kind: 'phone', phoneNumber });
    await verify(started);
    const ask = () =>
      postJson(`${setup!.url}/flows/${started.id}/proof`, {}, { 'verikit-flow-secret': started.flowSecret });
    const first = (await (await ask()).json()) as { token: string };
    const second = (await (await ask()).json()) as { token: string };
    await setup.verikit.redeemProof(first.token, { phoneNumber });
    await expect(setup.verikit.redeemProof(second.token, { phoneNumber })).rejects.toMatchObject({ reason: 'used' });
    expect((await ask()).status).toBe(403);
  });
});

describeAdapters('finding 9: a claim set is redeemed all or none', () => {
  it('a set whose second proof fails uses none; the phone proof lives long enough for a 15-minute BVN step', async () => {
    setup = await setupHttp({ requireFlowSecret: true });
    const started = await startAs(setup.url, { kind: 'phone', phoneNumber });
    await verify(started);
    const phoneProof = await setup.verikit.issueProof(started.id, { ttlMs: 30 * 60_000 });
    const forged = `v2.${Buffer.alloc(60).toString('base64url')}`;
    await expect(
      setup.verikit.redeemProofs([
        { token: phoneProof.token, claim: { phoneNumber } },
        { token: forged, claim: { idType: 'bvn', number: '12345678901' } },
      ]),
    ).rejects.toMatchObject({ reason: 'invalid' });
    const [verification] = await setup.verikit.redeemProofs([{ token: phoneProof.token, claim: { phoneNumber } }]);
    expect(verification?.phoneNumber).toBe(phoneNumber);
  });
});

describeAdapters('finding 3 and 7: the client address, per /64, never one shared bucket', () => {
  it('groups IPv6 per /64, maps IPv4-mapped addresses to IPv4, refuses junk', () => {
    const a = clientAddressKey('2001:db8:1:2:aaaa::1', 64);
    expect(a).toBe(clientAddressKey('2001:db8:1:2:ffff:ffff:ffff:ffff', 64));
    expect(a).not.toBe(clientAddressKey('2001:db8:1:3::1', 64));
    expect(clientAddressKey('::ffff:10.0.0.1', 64)).toBe('10.0.0.1');
    expect(clientAddressKey('not-an-ip', 64)).toBeUndefined();
  });

  it('12 addresses in one /64 share one per-client count of 10; junk in X-Forwarded-For is a 400; without an address no one is blocked', async () => {
    const verikit = createVerikit({
      provider: createTestProviderV1(),
      secret: httpTestSecret,
      guard: { perClient: { points: 10 }, perPrefix: false },
    });
    const handler = createFlowHandler({ verikit, trustProxy: true });
    const statuses: number[] = [];
    for (let index = 0; index < 12; index += 1) {
      const request = new Request('http://localhost/flows', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `2001:db8:7:7::${(index + 1).toString(16)}` },
        body: JSON.stringify({ kind: 'phone', phoneNumber: `+23480123400${String(index).padStart(2, '0')}` }),
      });
      statuses.push((await handler(request)).status);
    }
    expect(statuses.filter((status) => status === 429)).toHaveLength(2);
    const junk = new Request('http://localhost/flows', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': 'evil' },
      body: JSON.stringify({ kind: 'phone', phoneNumber }),
    });
    expect((await handler(junk)).status).toBe(400);
    // Called without any address (the documented Hono setup before toHonoHandler): never one shared bucket.
    const bare = createFlowHandler({ verikit });
    for (let index = 0; index < 12; index += 1) {
      const request = new Request('http://localhost/flows', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ kind: 'phone', phoneNumber: `+23480123401${String(index).padStart(2, '0')}` }),
      });
      expect((await bare(request)).status).toBe(201);
    }
  });
});

describeAdapters('finding 8 and issue 17.6: a repeat start resumes, never sends again', () => {
  it('the same Idempotency-Key returns the same flow and secret; the same owner (a second tab) joins its live USSD flow', async () => {
    setup = await setupHttp({ requireFlowSecret: true });
    const first = await startAs(setup.url, { kind: 'phone', phoneNumber }, { 'idempotency-key': 'k-1' });
    const again = await startAs(setup.url, { kind: 'phone', phoneNumber }, { 'idempotency-key': 'k-1' });
    expect([again.id, again.flowSecret]).toEqual([first.id, first.flowSecret]);
    expect(setup.provider.callsOf('phone.send')).toHaveLength(1);

    const owner = { 'verikit-owner': 'o'.repeat(22) };
    const tab1 = await startAs(setup.url, { kind: 'ussd', phoneNumber: '+2348098765432' }, owner);
    const tab2 = await startAs(setup.url, { kind: 'ussd', phoneNumber: '+2348098765432' }, owner);
    // Junk in either header is refused, not ignored.
    for (const junk of [{ 'idempotency-key': 'a b' }, { 'verikit-owner': 'short' }] as Record<string, string>[])
      expect((await postJson(`${setup.url}/flows`, { kind: 'phone', phoneNumber }, junk)).status).toBe(400);
    // One live flow for the number: the dial of the code both tabs show verifies it; no flow is left to fail.
    expect([tab2.id, tab2.flowSecret]).toEqual([tab1.id, tab1.flowSecret]);
    expect(tab2.status).toBe('awaiting-dial');
  });
});

describeAdapters('finding 10: live streams are capped', () => {
  it('the sixth stream of one flow is a 429 with Retry-After; closing one frees its place', async () => {
    setup = await setupHttp({ requireFlowSecret: true, streamLimits: { perFlow: 5 } });
    const started = await startAs(setup.url, { kind: 'phone', phoneNumber });
    const headers = { 'verikit-flow-secret': started.flowSecret };
    const controllers = Array.from({ length: 5 }, () => new AbortController());
    const open = await Promise.all(
      controllers.map((controller) =>
        fetch(`${setup!.url}/flows/${started.id}/stream`, { headers, signal: controller.signal }),
      ),
    );
    expect(open.map((response) => response.status)).toEqual([200, 200, 200, 200, 200]);
    const refused = await fetch(`${setup.url}/flows/${started.id}/stream`, { headers });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    controllers[0]!.abort();
    // A refused stream holds nothing: asking again until the aborted one has given its place back is harmless.
    const again = new AbortController();
    await expect
      .poll(
        async () => (await fetch(`${setup!.url}/flows/${started.id}/stream`, { headers, signal: again.signal })).status,
      )
      .toBe(200);
    again.abort();
    for (const controller of controllers) controller.abort();
  });
});
