import type { FlowHandleStorage } from './flow-handles.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { countingTimers, phoneNumber, recordVersions, startFlowServer, type FlowServer } from './client.fixtures.js';
import { createFlowClient, type FlowClient } from './create-flow-client.js';
import type { FlowObserver, FlowObserverOptions } from './flow-observer.js';

let server: FlowServer | undefined;
const cleanups: Array<() => void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await server?.close();
  server = undefined;
});

const fast: FlowObserverOptions = { reconnectDelayMs: 5, maxReconnectDelayMs: 40 };

function follow(observer: FlowObserver): ReturnType<typeof recordVersions> {
  const record = recordVersions();
  cleanups.push(observer.subscribe(record.listener));
  return record;
}

function nonDecreasing(versions: readonly number[]): boolean {
  return versions.every((version, index) => index === 0 || version >= versions[index - 1]!);
}

async function setup(
  engine: Parameters<typeof startFlowServer>[0] = {},
): Promise<{ server: FlowServer; client: FlowClient; timers: ReturnType<typeof countingTimers> }> {
  server = await startFlowServer(engine);
  const timers = countingTimers();
  return { server, client: createFlowClient({ baseUrl: server.url, timers }), timers };
}

/** A Web Storage of this test's own, shared by clients that stand for one browser tab. */
function memoryStorage(): FlowHandleStorage {
  const items = new Map<string, string>();
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
}

describe('FlowObserver: following a flow over server-sent events', () => {
  it('follows a phone flow to verified, each change once and in order, then closes the stream', async () => {
    const { server, client } = await setup();
    const started = await client.start({ kind: 'phone', phoneNumber });
    const observer = client.observe(started.id, { ...fast, initialView: started });
    expect(observer.getCurrentResult()).toMatchObject({ view: started, connection: 'idle' });
    const record = follow(observer);
    await vi.waitFor(() => expect(observer.getCurrentResult().connection).toBe('open'));
    expect(server.bus.active).toBe(1);

    await server.verikit.send(started.id, { type: 'submit-code', code: '000000' });
    await vi.waitFor(() =>
      expect(observer.getCurrentView()).toMatchObject({
        status: 'awaiting-code',
        attemptsLeft: started.attemptsLeft! - 1,
      }),
    );
    await server.verikit.send(started.id, { type: 'submit-code', code: server.provider.lastCode(phoneNumber)! });
    await vi.waitFor(() =>
      expect(observer.getCurrentResult()).toMatchObject({
        view: { status: 'verified', done: true },
        connection: 'closed',
      }),
    );
    await vi.waitFor(() => expect(server.bus.active).toBe(0));
    expect(record.statuses).toEqual(['awaiting-code', 'checking', 'awaiting-code', 'checking', 'verified']);
    expect(record.versions).toEqual([0, 1, 2, 3, 4].map((step) => started.version + step));
    expect(server.requests.filter((request) => request.path.endsWith('/stream'))).toHaveLength(1);
  });

  it('takes views from the POST answer and the stream in any order, keeping the highest version', async () => {
    const { client } = await setup();
    const started = await client.start({ kind: 'phone', phoneNumber });
    const observer = client.observe(started.id, fast);
    const record = follow(observer);
    await vi.waitFor(() => expect(observer.getCurrentResult().connection).toBe('open'));
    // The answer of send reaches the observer at once; the stream's copies of the same and older versions are dropped.
    const answer = await client.send(started.id, { type: 'submit-code', code: '000000' });
    expect(observer.getCurrentView()?.version).toBeGreaterThanOrEqual(answer.version);
    const older = { ...answer, version: answer.version - 1, status: 'checking' as const };
    expect(observer.offer(older)).toBe(false);
    expect(observer.offer(answer)).toBe(false);
    expect(observer.getCurrentView()).toEqual(answer);
    expect(nonDecreasing(record.versions)).toBe(true);
  });

  it('recovers from a dropped connection: resumes with Last-Event-ID, ends in the right state, no version going back', async () => {
    const { server, client } = await setup();
    const started = await client.start({ kind: 'phone', phoneNumber });
    const observer = client.observe(started.id, fast);
    const record = follow(observer);
    await vi.waitFor(() => expect(observer.getCurrentResult().connection).toBe('open'));
    for (let drop = 0; drop < 3; drop += 1) {
      expect(server.dropStreams()).toBe(1);
      // Changes made while the connection is down must still arrive.
      await server.verikit.send(started.id, { type: 'submit-code', code: '000000' });
      await vi.waitFor(() => expect(observer.getCurrentResult().connection).toBe('open'));
    }
    await vi.waitFor(() =>
      expect(observer.getCurrentView()).toMatchObject({
        attemptsLeft: started.attemptsLeft! - 3,
        status: 'awaiting-code',
      }),
    );
    await server.verikit.send(started.id, { type: 'submit-code', code: server.provider.lastCode(phoneNumber)! });
    await vi.waitFor(() =>
      expect(observer.getCurrentResult()).toMatchObject({ view: { status: 'verified' }, connection: 'closed' }),
    );
    expect(nonDecreasing(record.versions)).toBe(true);
    expect(record.versions.at(-1)).toBe((await server.verikit.get(started.id)).version);
    const streams = server.requests.filter((request) => request.path.endsWith('/stream'));
    expect(streams.length).toBeGreaterThanOrEqual(4);
    expect(streams[0]!.lastEventId).toBeNull();
    for (const stream of streams.slice(1)) expect(Number(stream.lastEventId)).toBeGreaterThanOrEqual(started.version);
    await vi.waitFor(() => expect(server.bus.active).toBe(0));
  });

  it('a 404 stream answer (unknown or deleted flow): reads the flow, learns it is gone, closes with flow_not_found', async () => {
    const { server, client, timers } = await setup();
    const observer = client.observe('Z'.repeat(22), fast);
    follow(observer);
    await vi.waitFor(() =>
      expect(observer.getCurrentResult()).toMatchObject({
        connection: 'closed',
        error: { code: 'flow_not_found', statusCode: 404 },
      }),
    );
    expect(server.requests.map(({ method, path }) => `${method} ${path}`)).toEqual([
      `GET /flows/${'Z'.repeat(22)}/stream`,
      `GET /flows/${'Z'.repeat(22)}`,
    ]);
    expect(timers.pending.size).toBe(0);
  });

  it('a 503 stream answer during a store outage: re-reads and reconnects with backoff until the store is back', async () => {
    const { server, client } = await setup();
    const started = await client.start({ kind: 'phone', phoneNumber });
    server.map.down = true;
    const observer = client.observe(started.id, fast);
    follow(observer);
    await vi.waitFor(() =>
      expect(server.requests.filter((request) => request.path.endsWith('/stream')).length).toBeGreaterThanOrEqual(3),
    );
    expect(observer.getCurrentResult()).toMatchObject({
      connection: 'reconnecting',
      error: { code: 'store_unavailable', isRetryable: true },
    });
    const paths = server.requests.slice(1).map((request) => request.path.endsWith('/stream'));
    // Every failed stream is followed by a re-read of the flow.
    expect(paths.slice(0, 4)).toEqual([true, false, true, false]);
    server.map.down = false;
    await vi.waitFor(() =>
      expect(observer.getCurrentResult()).toMatchObject({
        connection: 'open',
        error: undefined,
        view: { version: started.version },
      }),
    );
    await server.verikit.send(started.id, { type: 'cancel' });
    await vi.waitFor(() =>
      expect(observer.getCurrentResult()).toMatchObject({ view: { status: 'cancelled' }, connection: 'closed' }),
    );
  });

  it("a proxy's 502 page on the stream: re-reads (which works) and reconnects", async () => {
    const { server, client } = await setup();
    const started = await client.start({ kind: 'ussd', phoneNumber });
    let failures = 2;
    server.intercept = (request) =>
      new URL(request.url).pathname.endsWith('/stream') && failures-- > 0
        ? new Response('<html>Bad Gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } })
        : undefined;
    const observer = client.observe(started.id, fast);
    follow(observer);
    await vi.waitFor(() => expect(observer.getCurrentResult()).toMatchObject({ connection: 'open', error: undefined }));
    expect(observer.getCurrentView()).toMatchObject({ status: 'awaiting-dial', ussdCode: expect.any(String) });
    expect(
      server.requests.filter((request) => request.method === 'GET' && !request.path.endsWith('/stream')),
    ).toHaveLength(2);
  });

  it('re-reads when resendAvailableAt passes (no event is pushed for it) and sees resend allowed', async () => {
    const { server, client } = await setup({ policies: { resendCooldownMs: 300 } });
    // Counted from before the start, not from whenever the check runs: a loaded machine can take 300 ms to get there.
    const beforeStart = Date.now();
    const started = await client.start({ kind: 'phone', phoneNumber });
    expect(started.allowed).not.toContain('resend');
    const observer = client.observe(started.id, { ...fast, initialView: started });
    follow(observer);
    expect(observer.resendInMs(beforeStart)).toBeGreaterThan(0);
    expect(observer.resendInMs()).toBeLessThanOrEqual(300);
    expect(observer.resendInMs(observer.getCurrentResult().localResendAvailableAt! + 5)).toBe(0);
    await vi.waitFor(() => expect(observer.getCurrentView()?.allowed).toContain('resend'), { timeout: 5_000 });
    expect(observer.getCurrentView()?.version).toBe(started.version);
    expect(
      server.requests.filter((request) => request.method === 'GET' && request.path === `/flows/${started.id}`).length,
    ).toBeGreaterThanOrEqual(1);
    expect(observer.getCurrentResult().connection).toBe('open');
  });

  it('re-reads when expiresAt passes: the flow shows expired with no new version, and stays followed (expired is not final)', async () => {
    const { server, client, timers } = await setup({ policies: { codeTtlMs: 1_000, resendCooldownMs: 5_000 } });
    const beforeStart = Date.now();
    const started = await client.start({ kind: 'phone', phoneNumber });
    const observer = client.observe(started.id, { ...fast, initialView: started });
    follow(observer);
    expect(observer.expiresInMs(beforeStart)).toBeGreaterThan(0);
    expect(observer.expiresInMs()).toBeLessThanOrEqual(1_000);
    await vi.waitFor(
      () =>
        expect(observer.getCurrentView()).toMatchObject({ status: 'expired', done: false, version: started.version }),
      { timeout: 5_000 },
    );
    expect(observer.getCurrentView()?.allowed).toEqual(['cancel']);
    expect(observer.getCurrentResult().connection).toBe('open');
    await server.verikit.send(started.id, { type: 'cancel' });
    await vi.waitFor(() =>
      expect(observer.getCurrentResult()).toMatchObject({
        view: { status: 'cancelled', done: true },
        connection: 'closed',
      }),
    );
    await vi.waitFor(() => expect(server.bus.active).toBe(0));
    expect(timers.pending.size).toBe(0);
    expect(observer.expiresInMs()).toBeUndefined();
  });

  it('a done flow is not followed: its stream closes after the final view, and a done initial view opens nothing', async () => {
    // The engine's clock stands still, so the view the stream reads carries the same serverTime as the answer.
    const now = Date.now();
    const { server, client } = await setup({ clock: { now: () => now } });
    const started = await client.start({ kind: 'phone', phoneNumber });
    const cancelled = await client.send(started.id, { type: 'cancel' });
    const fromStream = client.observe(started.id, fast);
    follow(fromStream);
    await vi.waitFor(() =>
      expect(fromStream.getCurrentResult()).toMatchObject({ view: cancelled, connection: 'closed' }),
    );
    const requestsBefore = server.requests.length;
    const known = client.observe(started.id, { ...fast, initialView: cancelled });
    follow(known);
    expect(known.getCurrentResult()).toMatchObject({ view: cancelled, connection: 'closed' });
    expect(server.requests.length).toBe(requestsBefore);
  });

  it('unsubscribing stops every timer and connection; subscribing again starts over', async () => {
    const { server, client, timers } = await setup();
    const started = await client.start({ kind: 'phone', phoneNumber });
    const observer = client.observe(started.id, { ...fast, initialView: started });
    const first = observer.subscribe(() => undefined);
    const second = observer.subscribe(() => undefined);
    await vi.waitFor(() => expect(observer.getCurrentResult().connection).toBe('open'));
    expect(timers.pending.size).toBeGreaterThan(0);
    first();
    first();
    expect(observer.hasListeners()).toBe(true);
    expect(server.bus.active).toBe(1);
    second();
    expect(observer.getCurrentResult().connection).toBe('idle');
    expect(timers.pending.size).toBe(0);
    await vi.waitFor(() => expect(server.bus.active).toBe(0));
    // Changes while nobody listens are not followed; a new subscriber catches up.
    await server.verikit.send(started.id, { type: 'submit-code', code: '000000' });
    const again = follow(observer);
    await vi.waitFor(() => expect(observer.getCurrentView()?.attemptsLeft).toBe(started.attemptsLeft! - 1));
    expect(nonDecreasing(again.versions)).toBe(true);
  });

  it('a stream that falls silent (no heartbeat) counts as dead and is replaced', async () => {
    server = await startFlowServer({}, { heartbeatMs: 60_000 });
    const client = createFlowClient({ baseUrl: server.url });
    const started = await client.start({ kind: 'phone', phoneNumber });
    const observer = client.observe(started.id, { ...fast, staleStreamMs: 150 });
    follow(observer);
    await vi.waitFor(() =>
      expect(server!.requests.filter((request) => request.path.endsWith('/stream')).length).toBeGreaterThanOrEqual(2),
    );
    await server.verikit.send(started.id, { type: 'cancel' });
    await vi.waitFor(() =>
      expect(observer.getCurrentResult()).toMatchObject({ view: { status: 'cancelled' }, connection: 'closed' }),
    );
  });

  it("counts down on the server's clock: a server an hour ahead (Date header) and one sending serverTime", async () => {
    const skew = 3_600_000;
    const { server } = await setup({ clock: { now: () => Date.now() + skew }, policies: { resendCooldownMs: 30_000 } });
    const handles = memoryStorage();
    const dated = createFlowClient({
      storage: handles,
      baseUrl: server.url,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        const headers = new Headers(response.headers);
        headers.set('date', new Date(Date.now() + skew).toUTCString());
        return new Response(response.body, { status: response.status, headers });
      },
    });
    const started = await dated.start({ kind: 'phone', phoneNumber });
    expect(dated.serverClockOffsetMs()).toBeGreaterThan(skew - 2_000);
    expect(dated.serverClockOffsetMs()).toBeLessThan(skew + 2_000);
    const observer = dated.observe(started.id, { initialView: started });
    expect(observer.resendInMs()).toBeGreaterThan(27_000);
    expect(observer.resendInMs()).toBeLessThanOrEqual(31_000);

    const timed = createFlowClient({
      baseUrl: server.url,
      // Reads the flow `dated` started: it shares its handles (this tab's storage).
      storage: handles,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        const body = (await response.json()) as Record<string, unknown>;
        return Response.json({ ...body, serverTime: Date.now() + skew }, { status: response.status });
      },
    });
    const view = await timed.get(started.id);
    expect(view.serverTime).toBeDefined();
    expect(Math.abs(timed.serverClockOffsetMs() - skew)).toBeLessThan(1_000);
    // Cross-origin the Date header is unreadable: the server's own serverTime gives the offset.
    const dateless = createFlowClient({
      storage: handles,
      baseUrl: server.url,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        const headers = new Headers(response.headers);
        headers.delete('date');
        return new Response(response.body, { status: response.status, headers });
      },
    });
    expect((await dateless.get(started.id)).serverTime).toBeDefined();
    expect(Math.abs(dateless.serverClockOffsetMs() - skew)).toBeLessThan(1_000);
    const offsetFree = createFlowClient({
      storage: handles,
      baseUrl: server.url,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        const headers = new Headers(response.headers);
        headers.delete('date');
        const { serverTime: _serverTime, ...body } = (await response.json()) as Record<string, unknown>;
        return new Response(JSON.stringify(body), { status: response.status, headers });
      },
    });
    await offsetFree.get(started.id);
    // Without the Date header and without serverTime (an older server), the local clock is all there is.
    expect(offsetFree.serverClockOffsetMs()).toBe(0);
  });
});
