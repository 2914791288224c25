import { afterEach, expect, it, vi } from 'vitest';
import type { FlowView } from '@verikit/core';
import {
  describeAdapters,
  EventReader,
  frozenClock,
  phoneNumber,
  postJson,
  setupHttp,
  type HttpSetup,
} from './http.fixtures.js';

let setup: HttpSetup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

async function startPhone(): Promise<FlowView> {
  const started = await (await postJson(`${setup!.url}/flows`, { kind: 'phone', phoneNumber })).json();
  const { flowSecret: _secret, ...view } = started as FlowView & { flowSecret?: string };
  return view as FlowView;
}

describeAdapters('GET /flows/:id/stream: server-sent events of the view', () => {
  it('sends the current view first, then the change a POST event made, with the version as id', async () => {
    setup = await setupHttp({}, { clock: frozenClock() });
    const view = await startPhone();
    const controller = new AbortController();
    const response = await fetch(`${setup.url}/flows/${view.id}/stream`, { signal: controller.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const events = new EventReader(response);
    expect(await events.nextBlock()).toEqual(['retry: 3000']);
    const first = await events.nextView();
    expect(first).toEqual({ id: String(view.version), view });

    await postJson(`${setup.url}/flows/${view.id}/events`, { type: 'submit-code', code: '000000' });
    const checking = await events.nextView();
    expect(checking?.view).toMatchObject({ status: 'checking', version: view.version + 1 });
    const checked = await events.nextView();
    expect(checked?.view).toMatchObject({
      status: 'awaiting-code',
      attemptsLeft: view.attemptsLeft! - 1,
      version: view.version + 2,
    });
    expect(checked?.id).toBe(String(view.version + 2));
    controller.abort();
  });

  it('sends the final view and closes when the flow is done, unsubscribing', async () => {
    setup = await setupHttp();
    const view = await startPhone();
    const events = new EventReader(await fetch(`${setup.url}/flows/${view.id}/stream`));
    expect((await events.nextView())?.view.status).toBe('awaiting-code');
    expect(setup.bus.active).toBe(1);
    await postJson(`${setup.url}/flows/${view.id}/events`, { type: 'cancel' });
    const last = await events.nextView();
    expect(last?.view).toMatchObject({ status: 'cancelled', done: true });
    expect(await events.nextView()).toBeUndefined();
    expect(setup.bus.active).toBe(0);
  });

  it('a done flow sends its view and closes; a reconnect that saw it (Last-Event-ID) gets 204', async () => {
    setup = await setupHttp({}, { clock: frozenClock() });
    const view = await startPhone();
    const done = (await (
      await postJson(`${setup.url}/flows/${view.id}/events`, { type: 'cancel' })
    ).json()) as FlowView;
    const events = new EventReader(await fetch(`${setup.url}/flows/${view.id}/stream`));
    expect((await events.nextView())?.view).toEqual(done);
    expect(await events.nextView()).toBeUndefined();
    const reconnect = await fetch(`${setup.url}/flows/${view.id}/stream`, {
      headers: { 'last-event-id': String(done.version) },
    });
    expect(reconnect.status).toBe(204);
    const older = await fetch(`${setup.url}/flows/${view.id}/stream`, {
      headers: { 'last-event-id': String(done.version - 1) },
    });
    expect(older.status).toBe(200);
    await older.body?.cancel();
    await vi.waitFor(() => expect(setup!.bus.active).toBe(0));
  });

  it('the streams of a flow share one subscription, which ends with the last of them', async () => {
    setup = await setupHttp();
    const view = await startPhone();
    const controllers = Array.from({ length: 5 }, () => new AbortController());
    const readers: EventReader[] = [];
    for (const controller of controllers) {
      const events = new EventReader(
        await fetch(`${setup.url}/flows/${view.id}/stream`, { signal: controller.signal }),
      );
      await events.nextView();
      readers.push(events);
    }
    expect([setup.bus.active, setup.bus.subscriptions]).toEqual([1, 1]);
    for (const controller of controllers.slice(0, 4)) controller.abort();
    // The last stream still follows the flow after the others went away.
    await postJson(`${setup.url}/flows/${view.id}/events`, { type: 'submit-code', code: '000000' });
    expect((await readers[4]!.nextView())?.view.version).toBe(view.version + 1);
    expect(setup.bus.active).toBe(1);
    controllers[4]!.abort();
    await vi.waitFor(() => expect(setup!.bus.active).toBe(0));
    // The flow still works, and a change reaches no dead stream.
    const response = await postJson(`${setup.url}/flows/${view.id}/events`, { type: 'submit-code', code: '000000' });
    expect(response.status).toBe(200);
  });

  it('sends heartbeat comments while the flow is idle', async () => {
    setup = await setupHttp({ heartbeatMs: 20 });
    const view = await startPhone();
    const controller = new AbortController();
    const events = new EventReader(await fetch(`${setup.url}/flows/${view.id}/stream`, { signal: controller.signal }));
    await events.nextView();
    expect(await events.nextBlock()).toEqual([': heartbeat']);
    expect(await events.nextBlock()).toEqual([': heartbeat']);
    controller.abort();
    await vi.waitFor(() => expect(setup!.bus.active).toBe(0));
  });

  it('many concurrent changes arrive once each, in version order, ending with the final view', async () => {
    setup = await setupHttp();
    const view = await startPhone();
    const events = new EventReader(await fetch(`${setup.url}/flows/${view.id}/stream`));
    await events.nextView();
    const url = `${setup.url}/flows/${view.id}/events`;
    await Promise.all(Array.from({ length: 4 }, () => postJson(url, { type: 'submit-code', code: '000000' })));
    await postJson(url, { type: 'cancel' });
    const versions: number[] = [];
    for (let next = await events.nextView(); next !== undefined; next = await events.nextView())
      versions.push(next.view.version);
    const final = await setup.verikit.get(view.id);
    expect(versions).toEqual(
      Array.from({ length: final.version - view.version }, (_, index) => view.version + index + 1),
    );
    expect(setup.bus.active).toBe(0);
  });
});
