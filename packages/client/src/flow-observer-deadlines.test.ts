import { afterEach, describe, expect, it, vi } from 'vitest';
import { phoneNumber, startFlowServer, type FlowServer } from './client.fixtures.js';
import { createFlowClient } from './create-flow-client.js';
import type { FlowView } from './flow-view.js';

let server: FlowServer | undefined;
const cleanups: Array<() => void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await server?.close();
  server = undefined;
});

/** A fetch whose answers carry the server's skewed clock in their `Date` header, as a real server's would. */
function datedFetch(skewMs: number): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const headers = new Headers(response.headers);
    headers.set('date', new Date(Date.now() + skewMs).toUTCString());
    return new Response(response.body, { status: response.status, headers });
  };
}

describe("FlowObserver: deadlines on the server's clock", () => {
  it('a fast device clock learnt after the first view moves the local deadlines: the cooldown is not shown as over', async () => {
    const skew = -60_000; // the device is a minute ahead of the server
    server = await startFlowServer({ clock: { now: () => Date.now() + skew }, policies: { resendCooldownMs: 30_000 } });
    // One browser's storage: the follower finds the flow secret the starter kept (as after a reload).
    const kept = new Map<string, string>();
    const storage = {
      getItem: (key: string) => kept.get(key) ?? null,
      setItem: (key: string, value: string) => void kept.set(key, value),
      removeItem: (key: string) => void kept.delete(key),
    };
    const started = await createFlowClient({ baseUrl: server.url, fetch: datedFetch(skew), storage }).start({
      kind: 'phone',
      phoneNumber,
    });
    // A follow-only client (the page got the view elsewhere): it has heard nothing from the server yet.
    const follower = createFlowClient({ baseUrl: server.url, fetch: datedFetch(skew), storage });
    const observer = follower.observe(started.id, { initialView: started });
    expect(observer.resendInMs()).toBe(0);
    cleanups.push(observer.subscribe(() => undefined));
    await vi.waitFor(() => expect(observer.getCurrentResult().connection).toBe('open'));
    await vi.waitFor(() => expect(observer.resendInMs()).toBeGreaterThan(20_000));
    expect(observer.getCurrentResult().localResendAvailableAt).toBeGreaterThan(Date.now() + 20_000);
  });

  it('reads nothing for a deadline the server had already passed when it made the view', async () => {
    let serverNow = Date.now();
    server = await startFlowServer({ clock: { now: () => serverNow }, policies: { resendCooldownMs: 1_000 } });
    const client = createFlowClient({ baseUrl: server.url });
    const started = await client.start({ kind: 'phone', phoneNumber });
    serverNow += 5_000;
    const current = await client.get(started.id);
    expect(current.allowed).toContain('resend');
    expect(current.resendAvailableAt).toBeLessThanOrEqual(current.serverTime!);
    const observer = client.observe(started.id, { initialView: current });
    cleanups.push(observer.subscribe(() => undefined));
    await vi.waitFor(() => expect(observer.getCurrentResult().connection).toBe('open'));
    await server.verikit.send(started.id, { type: 'cancel' });
    await vi.waitFor(() => expect(observer.getCurrentResult().connection).toBe('closed'));
    const reads = server.requests.filter((request) => request.method === 'GET' && !request.path.endsWith('/stream'));
    expect(reads.map((request) => request.path)).toEqual([`/flows/${started.id}`]);
  });

  it('a follow-only client on a fast clock reads nothing for a deadline before the server first answers', async () => {
    const skew = -300_000; // the device is 5 minutes ahead: every deadline looks long past
    server = await startFlowServer({ clock: { now: () => Date.now() + skew }, policies: { resendCooldownMs: 5_000 } });
    // The flow was started elsewhere; this client is handed its id and secret (a second device).
    const answer = await fetch(`${server.url}/flows`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'phone', phoneNumber }),
    });
    const { flowSecret, ...started } = (await answer.json()) as FlowView & { flowSecret: string };
    const follower = createFlowClient({
      baseUrl: server.url,
      fetch: datedFetch(skew),
      headers: { 'verikit-flow-secret': flowSecret },
      storage: false,
    });
    const observer = follower.observe(started.id, { initialView: started });
    cleanups.push(observer.subscribe(() => undefined));
    await vi.waitFor(() => expect(observer.getCurrentResult().connection).toBe('open'));
    await vi.waitFor(() => expect(observer.resendInMs()).toBeGreaterThan(2_000));
    await new Promise((resolve) => setTimeout(resolve, 600));
    const reads = server.requests.filter((request) => request.method === 'GET' && !request.path.endsWith('/stream'));
    expect(reads).toEqual([]);
  });
});
