import { afterEach, describe, expect, it } from 'vitest';
import { phoneNumber, startFlowServer, type FlowServer } from './client.fixtures.js';
import { createFlowClient } from './create-flow-client.js';
import type { FlowHandleStorage } from './flow-handles.js';

let server: FlowServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** One tab's sessionStorage, which outlives a reload (a new client on the same storage). */
function tabStorage(): FlowHandleStorage & { items: Map<string, string> } {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
}

describe('the client keeps flow handles', () => {
  it('sends the flow secret in a header, never in a URL or a view; a reload resumes the flow with no new code', async () => {
    server = await startFlowServer();
    const storage = tabStorage();
    const urls: string[] = [];
    const seen: Array<string | null> = [];
    const fetchSpy: typeof fetch = (input, init) => {
      urls.push(String(input));
      seen.push(new Headers(init?.headers).get('verikit-flow-secret'));
      return fetch(input, init);
    };
    const before = createFlowClient({ baseUrl: server.url, storage, fetch: fetchSpy });
    const view = await before.start({ kind: 'phone', phoneNumber });
    const secret = server.verikit.flowSecret(view.id);
    expect(JSON.stringify(view)).not.toContain(secret);
    await before.get(view.id);
    expect(seen.at(-1)).toBe(secret);
    expect(urls.join(' ')).not.toContain(secret);

    // The reload: a new client on the same tab storage.
    const after = createFlowClient({ baseUrl: server.url, storage });
    expect((await after.resume({ kind: 'phone', phoneNumber }))?.id).toBe(view.id);
    expect((await after.start({ kind: 'phone', phoneNumber })).id).toBe(view.id);
    expect(server.provider.callsOf('phone.send')).toHaveLength(1);
    // The stored handle names no number.
    expect([...storage.items.values()].join()).not.toContain(phoneNumber.slice(-7));
  });

  it('a done flow is not resumed: the next start is a new flow', async () => {
    server = await startFlowServer();
    const storage = tabStorage();
    const client = createFlowClient({ baseUrl: server.url, storage });
    const view = await client.start({ kind: 'phone', phoneNumber });
    await client.send(view.id, { type: 'cancel' });
    expect(await client.resume({ kind: 'phone', phoneNumber })).toBeUndefined();
  });

  it('another client without the handle cannot read the flow: flow_not_found', async () => {
    server = await startFlowServer();
    const view = await createFlowClient({ baseUrl: server.url, storage: false }).start({ kind: 'phone', phoneNumber });
    const stranger = createFlowClient({ baseUrl: server.url, storage: false });
    await expect(stranger.get(view.id)).rejects.toMatchObject({ code: 'flow_not_found' });
  });
});
