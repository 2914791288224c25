import { afterEach, describe, expect, it, vi } from 'vitest';
import { phoneNumber, recordVersions, startFlowServer, type FlowServer } from './client.fixtures.js';
import { createFlowClient } from './create-flow-client.js';
import type { FlowView } from './flow-view.js';
import type { FlowObserver, FlowObserverOptions } from './flow-observer.js';

/** The observer on the stream's `end` and `error` events (decision 0053), against the real flow server. */
let server: FlowServer | undefined;
const cleanups: Array<() => void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await server?.close();
  server = undefined;
});

const fast: FlowObserverOptions = { reconnectDelayMs: 5, maxReconnectDelayMs: 40 };

/** A phone flow started on a fresh server, followed by a subscribed observer whose stream is open. */
async function openFollowed(
  heartbeatMs: number,
  before: (server: FlowServer) => void = () => undefined,
): Promise<{ server: FlowServer; started: FlowView; observer: FlowObserver }> {
  server = await startFlowServer({}, { heartbeatMs });
  const client = createFlowClient({ baseUrl: server.url });
  const started = await client.start({ kind: 'phone', phoneNumber });
  before(server);
  const observer = client.observe(started.id, fast);
  cleanups.push(observer.subscribe(recordVersions().listener));
  await vi.waitFor(() => expect(observer.getCurrentResult().connection).toBe('open'));
  return { server, started, observer };
}

/** Cancels the flow on the server and waits until the observer shows it done and closed, with no error. */
async function cancelAndSeeClosed(server: FlowServer, started: FlowView, observer: FlowObserver): Promise<void> {
  await server.verikit.send(started.id, { type: 'cancel' });
  await vi.waitFor(() =>
    expect(observer.getCurrentResult()).toMatchObject({
      view: { status: 'cancelled', done: true },
      connection: 'closed',
      error: undefined,
    }),
  );
}

function requestsFor(server: FlowServer, flowId: string): string[] {
  return server.requests.map(({ method, path }) => `${method} ${path}`).filter((request) => request.includes(flowId));
}

/** Drops the `view` events of done views from the stream answers: a proxy that lost the last view before `end`. */
function dropDoneViews(server: FlowServer): void {
  server.intercept = async (request) => {
    if (!new URL(request.url).pathname.endsWith('/stream') || request.headers.has('x-test-inner')) return undefined;
    const headers = new Headers(request.headers);
    headers.set('x-test-inner', '1');
    const answer = await fetch(request.url, { headers, signal: request.signal });
    const decoder = new TextDecoder();
    const encoder = new TextEncoder();
    let pending = '';
    const filter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        pending += decoder.decode(chunk, { stream: true });
        const blocks = pending.split('\n\n');
        pending = blocks.pop()!;
        for (const block of blocks)
          if (!(block.includes('event: view') && block.includes('"done":true')))
            controller.enqueue(encoder.encode(`${block}\n\n`));
      },
    });
    return new Response(answer.body!.pipeThrough(filter), { status: answer.status, headers: answer.headers });
  };
}

describe('FlowObserver: the stream says why it ends', () => {
  it('event end after the done view: closes without reconnecting (one stream request)', async () => {
    const { server, started, observer } = await openFollowed(60_000);
    await cancelAndSeeClosed(server, started, observer);
    await vi.waitFor(() => expect(server.bus.active).toBe(0));
    expect(requestsFor(server, started.id).filter((request) => request.endsWith('/stream'))).toHaveLength(1);
  });

  it('event end whose done view never arrived: reads the flow once, takes the done view, does not reconnect', async () => {
    const { server, started, observer } = await openFollowed(60_000, dropDoneViews);
    await cancelAndSeeClosed(server, started, observer);
    const requests = requestsFor(server, started.id).filter((request) => !request.startsWith('POST'));
    // The intercept's own fetch of the stream also reaches the server: two stream requests for one stream.
    expect(requests).toEqual([
      `GET /flows/${started.id}/stream`,
      `GET /flows/${started.id}/stream`,
      `GET /flows/${started.id}`,
    ]);
  });

  it('the flow deleted from the store mid-stream: event error, one re-read, closes with flow_not_found and its messageId', async () => {
    const { server, started, observer } = await openFollowed(20);
    const key = [...server.map.keys()].find((name) => name.endsWith(`flow:${started.id}`))!;
    server.map.delete(key);
    await vi.waitFor(() =>
      expect(observer.getCurrentResult()).toMatchObject({
        connection: 'closed',
        error: {
          name: 'FlowNotFoundError',
          code: 'flow_not_found',
          messageId: 'verikit.error.flow_not_found',
          isRetryable: false,
        },
      }),
    );
    expect(requestsFor(server, started.id).filter((request) => !request.startsWith('POST'))).toEqual([
      `GET /flows/${started.id}/stream`,
      `GET /flows/${started.id}`,
    ]);
    await vi.waitFor(() => expect(server.bus.active).toBe(0));
  });

  it('a store outage mid-stream: event error store_unavailable, re-read then reconnect with backoff, recovers when the store is back', async () => {
    const { server, started, observer } = await openFollowed(20);
    server.map.down = true;
    await vi.waitFor(() =>
      expect(observer.getCurrentResult()).toMatchObject({
        connection: 'reconnecting',
        error: { code: 'store_unavailable', messageId: 'verikit.error.store_unavailable', isRetryable: true },
      }),
    );
    // The failed stream is followed by a re-read, as a refused one is, not by a blind reconnect.
    expect(
      requestsFor(server, started.id)
        .filter((request) => !request.startsWith('POST'))
        .slice(0, 2),
    ).toEqual([`GET /flows/${started.id}/stream`, `GET /flows/${started.id}`]);
    server.map.down = false;
    await vi.waitFor(
      () => expect(observer.getCurrentResult()).toMatchObject({ connection: 'open', error: undefined }),
      { timeout: 5_000 },
    );
    await server.verikit.send(started.id, { type: 'cancel' });
    await vi.waitFor(() =>
      expect(observer.getCurrentResult()).toMatchObject({ view: { status: 'cancelled' }, connection: 'closed' }),
    );
  });
});
