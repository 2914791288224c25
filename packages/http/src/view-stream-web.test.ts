import { describe, expect, it, vi } from 'vitest';
import { createVerikit, type FlowView } from '@verikit/core';
import { createTestProviderV1 } from '@verikit/testing';
import { createFlowHandler } from './create-flow-handler.js';
import { CountingChangeBus, EventReader, httpTestSecret, phoneNumber } from './http.fixtures.js';

/**
 * The stream route on every server other than `toNodeHandler` (Bun, Deno, Workers, @hono/node-server's `serve`):
 * the handler is called with a `Request` alone and answers with a Web `ReadableStream` (decision 0511).
 */
async function setupWeb() {
  const bus = new CountingChangeBus();
  const verikit = createVerikit({ provider: createTestProviderV1(), secret: httpTestSecret, changeBus: bus });
  const handler = createFlowHandler({ verikit, heartbeatMs: 20 });
  const flow = await verikit.start({ kind: 'phone', phoneNumber });
  const streamOf = (signal?: AbortSignal, headers: Record<string, string> = {}) =>
    handler(
      new Request(`http://localhost/flows/${flow.id}/stream`, {
        headers: { 'verikit-flow-secret': verikit.flowSecret(flow.id), ...headers },
        ...(signal === undefined ? {} : { signal }),
      }),
    );
  return { bus, verikit, flow: flow as FlowView, streamOf };
}

describe('the stream route through Web streams (no toNodeHandler)', () => {
  it('sends the view, heartbeats and changes, then the final view and end, and unsubscribes', async () => {
    const { bus, verikit, flow, streamOf } = await setupWeb();
    const response = await streamOf();
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events = new EventReader(response);
    expect(await events.nextBlock()).toEqual(['retry: 3000']);
    expect((await events.nextView())?.view).toMatchObject({ id: flow.id, version: flow.version, status: flow.status });
    expect(await events.nextBlock()).toEqual([': heartbeat']);
    await verikit.send(flow.id, { type: 'submit-code', code: '000000' });
    expect((await events.nextView())?.view.version).toBe(flow.version + 1);
    const cancelled = await verikit.cancel(flow.id);
    expect((await events.nextEvent('end'))?.data).toBe(JSON.stringify({ version: cancelled.version }));
    expect(await events.nextBlock()).toBeUndefined();
    expect(bus.active).toBe(0);
  });

  it('stops when the request aborts or the reader cancels, leaving no subscription', async () => {
    const { bus, streamOf } = await setupWeb();
    const controller = new AbortController();
    const aborted = new EventReader(await streamOf(controller.signal));
    await aborted.nextView();
    const cancelled = await streamOf();
    expect(bus.active).toBe(1);
    controller.abort();
    await cancelled.body!.cancel();
    await vi.waitFor(() => expect(bus.active).toBe(0));
  });

  it('answers 204 to a reconnect that saw the final version (Last-Event-ID)', async () => {
    const { bus, verikit, flow, streamOf } = await setupWeb();
    const done = await verikit.cancel(flow.id);
    const reconnect = await streamOf(undefined, { 'last-event-id': String(done.version) });
    expect(reconnect.status).toBe(204);
    expect(bus.active).toBe(0);
  });
});
