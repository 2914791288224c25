import Keyv from 'keyv';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createVerikit, KeyvFlowStore, type FlowView } from '@verikit/core';
import { EventReader, httpTestSecret, phoneNumber, postJson, setupHttp, type HttpSetup } from './http.fixtures.js';

let setup: HttpSetup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

async function startPhone(): Promise<FlowView> {
  return (await (await postJson(`${setup!.url}/flows`, { kind: 'phone', phoneNumber })).json()) as FlowView;
}

/** Everything left on the stream, as raw blocks; the stream must end. */
async function rest(events: EventReader): Promise<string[][]> {
  const blocks: string[][] = [];
  for (let block = await events.nextBlock(); block !== undefined; block = await events.nextBlock()) blocks.push(block);
  return blocks;
}

describe('the stream says why it ends', () => {
  it('a done flow: the final view, then event end with its version, then the close', async () => {
    setup = await setupHttp();
    const view = await startPhone();
    const events = new EventReader(await fetch(`${setup.url}/flows/${view.id}/stream`));
    await events.nextView();
    await postJson(`${setup.url}/flows/${view.id}/events`, { type: 'cancel' });
    const blocks = (await rest(events)).filter((block) => !block[0]!.startsWith(':'));
    const final = JSON.parse(blocks[0]!.at(-1)!.slice('data: '.length)) as FlowView;
    expect(final).toMatchObject({ status: 'cancelled', done: true });
    expect(blocks.slice(1)).toEqual([['event: end', `data: {"version":${final.version}}`]]);
    expect(setup.bus.active).toBe(0);
  });

  it('a stream opened on a done flow sends its view and end at once', async () => {
    setup = await setupHttp();
    const view = await startPhone();
    const done = (await (
      await postJson(`${setup.url}/flows/${view.id}/events`, { type: 'cancel' })
    ).json()) as FlowView;
    const events = new EventReader(await fetch(`${setup.url}/flows/${view.id}/stream`));
    expect((await events.nextView())?.view.version).toBe(done.version);
    expect(await events.nextEvent('end')).toEqual({
      event: 'end',
      id: undefined,
      data: JSON.stringify({ version: done.version }),
    });
    expect(await events.nextBlock()).toBeUndefined();
  });

  it('the flow gone mid-stream: event error with flow_not_found, then the close, unsubscribed', async () => {
    setup = await setupHttp({ heartbeatMs: 20 });
    const view = await startPhone();
    const events = new EventReader(await fetch(`${setup.url}/flows/${view.id}/stream`));
    await events.nextView();
    const key = [...setup.map.keys()].find((name) => name.endsWith(`flow:${view.id}`))!;
    setup.map.delete(key);
    const error = await events.nextEvent('error');
    expect(JSON.parse(error!.data)).toEqual({
      error: {
        name: 'FlowNotFoundError',
        code: 'flow_not_found',
        message: 'flow not found',
        messageId: 'verikit.error.flow_not_found',
        field: 'flowId',
        isRetryable: false,
      },
    });
    expect(await events.nextBlock()).toBeUndefined();
    await vi.waitFor(() => expect(setup!.bus.active).toBe(0));
  });

  it('the store down mid-stream: event error with store_unavailable, nothing secret, then the close', async () => {
    setup = await setupHttp({ heartbeatMs: 20 });
    const view = await startPhone();
    const events = new EventReader(await fetch(`${setup.url}/flows/${view.id}/stream`));
    await events.nextView();
    setup.map.down = true;
    const error = await events.nextEvent('error');
    expect(JSON.parse(error!.data)).toMatchObject({
      error: { code: 'store_unavailable', messageId: 'verikit.error.store_unavailable', isRetryable: true },
    });
    expect(error!.data).not.toMatch(/hunter2|ECONNREFUSED|stack/);
    expect(await events.nextBlock()).toBeUndefined();
    await vi.waitFor(() => expect(setup!.bus.active).toBe(0));
  });

  it('a change the bus never delivered reaches the stream with the next heartbeat', async () => {
    setup = await setupHttp({ heartbeatMs: 20 });
    const view = await startPhone();
    const events = new EventReader(await fetch(`${setup.url}/flows/${view.id}/stream`));
    await events.nextView();
    // Another engine on the same store, whose changes go to its own bus only.
    const keyv = new Keyv({
      store: setup.map,
      serialize: JSON.stringify,
      deserialize: JSON.parse,
      throwOnErrors: true,
      namespace: 'verikit',
    });
    const other = createVerikit({ provider: setup.provider, secret: httpTestSecret, store: new KeyvFlowStore(keyv) });
    const cancelled = await other.cancel(view.id);
    expect((await events.nextView())?.view).toMatchObject({ status: 'cancelled', version: cancelled.version });
    expect(await events.nextEvent('end')).toMatchObject({ data: JSON.stringify({ version: cancelled.version }) });
  });

  it('a client that goes away leaves no listener, and a later change writes nothing to its stream', async () => {
    setup = await setupHttp({ heartbeatMs: 20 });
    const view = await startPhone();
    const controller = new AbortController();
    const events = new EventReader(await fetch(`${setup.url}/flows/${view.id}/stream`, { signal: controller.signal }));
    await events.nextView();
    controller.abort();
    await vi.waitFor(() => expect(setup!.bus.active).toBe(0));
    // The flow goes on; nothing is written to the closed stream (no throw, no unhandled rejection).
    expect((await postJson(`${setup.url}/flows/${view.id}/events`, { type: 'cancel' })).status).toBe(200);
  });
});
