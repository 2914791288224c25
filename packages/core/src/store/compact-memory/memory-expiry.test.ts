import { fork } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import type { ExpiringMap } from './expiring-map.js';
import type { FlowRecord } from '../flow-store.js';
import { KeyvFlowStore, createMemoryKeyv } from '../keyv-flow-store.js';
import { ManualClock } from '@verikit/testing';

// Keyv stamps expiries with Date.now(); sweeps are given an explicit `now` well past them, so no
// assertion depends on how long anything takes.
const minute = 60_000;
const hour = 60 * minute;

function memoryStore() {
  const keyv = createMemoryKeyv();
  return { store: new KeyvFlowStore(keyv), map: keyv.store as ExpiringMap, keyv };
}

function flowRecord(id: string, version: number): FlowRecord {
  const now = Date.now();
  return {
    schemaVersion: 1,
    id,
    kind: 'phone',
    version,
    value: 'awaiting-code',
    context: { phoneNumber: '+2348012345678', attempts: 0, expiresAt: now + 10 * minute },
    createdAt: now,
    updatedAt: now,
  };
}

describe('the embedded memory store', () => {
  it("stores each record as Keyv's JSON { value, expires } under the verikit namespace", async () => {
    const { store, map } = memoryStore();
    const record = flowRecord('f1', 1);
    const before = Date.now();
    await store.compareAndSetFlow(record, 0, minute);
    const { value, expires } = JSON.parse(map.get('verikit:flow:f1')!) as { value: FlowRecord; expires: number };
    expect(value).toEqual(record);
    expect(expires).toBeGreaterThanOrEqual(before + minute);
    expect(expires).toBeLessThanOrEqual(Date.now() + minute);
    expect(await store.getFlow('f1')).toEqual(record);
  });

  it('drops expired flows, routes, limits and claims from the map without their being read', async () => {
    const { store, map } = memoryStore();
    await store.compareAndSetFlow(flowRecord('f1', 1), 0, minute);
    await store.setRoute('ussd:+2348012345678', 'f1', minute);
    await store.consume('sends:+2348012345678', 5, minute, Date.now());
    expect(await store.claim('webhook:w1:1', minute)).toBe(true);
    await store.compareAndSetFlow(flowRecord('kept', 1), 0, hour);
    const written = Date.now();
    expect(map.size).toBe(5);

    expect(map.sweep(written)).toBe(0);
    expect(map.sweep(written + minute + 1000)).toBe(4);
    expect([...map.keys()]).toEqual(['verikit:flow:kept']);
    expect(map.sweep(written + hour + 1000)).toBe(1);
    expect(map.size).toBe(0);
    expect(map.pendingExpiries).toBe(0);
  });

  it('keeps a flow rewritten with a later TTL past the first expiry', async () => {
    const { store, map } = memoryStore();
    expect(await store.compareAndSetFlow(flowRecord('f1', 1), 0, minute)).toBe(true);
    expect(await store.compareAndSetFlow(flowRecord('f1', 2), 1, hour)).toBe(true);
    await store.setRoute('ussd:+2348012345678', 'f1', minute);
    await store.setRoute('ussd:+2348012345678', 'f1', hour);
    const written = Date.now();

    expect(map.sweep(written + 10 * minute)).toBe(0);
    expect((await store.getFlow('f1'))?.version).toBe(2);
    expect(await store.getRoute('ussd:+2348012345678')).toBe('f1');
    expect(map.sweep(written + hour + 1000)).toBe(2);
    expect(map.size).toBe(0);
  });

  it('lets a swept claim be taken again and a swept limit start a new window', async () => {
    const { store, map } = memoryStore();
    const start = Date.now();
    expect(await store.claim('webhook:w1:1', minute)).toBe(true);
    expect(await store.claim('webhook:w1:1', minute)).toBe(false);
    expect((await store.consume('sends:a', 1, minute, start)).allowed).toBe(true);
    map.sweep(Date.now() + minute + 1000);
    expect(map.size).toBe(0);
    expect(await store.claim('webhook:w1:1', minute)).toBe(true);
    expect(await store.consume('sends:a', 1, minute, Date.now() + minute + 1000)).toMatchObject({
      allowed: true,
      used: 1,
    });
  });

  it('lets a claim lapse when the clock the Keyv was given passes its lease, and not before', async () => {
    const clock = new ManualClock(Date.now());
    const keyv = createMemoryKeyv({ clock });
    const store = new KeyvFlowStore(keyv);
    expect(await store.claim('webhook:w1:0', 300)).toBe(true);
    await store.setRoute('marker', 'f1', 300);
    clock.advance(300);
    expect(await store.claim('webhook:w1:0', 300)).toBe(false);
    expect(await store.getRoute('marker')).toBe('f1');
    clock.advance(1);
    expect(await store.claim('webhook:w1:0', 300)).toBe(true);
    expect(await store.getRoute('marker')).toBeUndefined();
  });

  it('without a clock, follows Date as it is when asked: a test that fakes Date after making the store moves it', async () => {
    const { store } = memoryStore();
    vi.useFakeTimers({ toFake: ['Date'] });
    onTestFinished(() => void vi.useRealTimers());
    expect(await store.claim('webhook:w2:0', 300)).toBe(true);
    vi.setSystemTime(Date.now() + 300);
    expect(await store.claim('webhook:w2:0', 300)).toBe(false);
    vi.setSystemTime(Date.now() + 1);
    expect(await store.claim('webhook:w2:0', 300)).toBe(true);
  });

  it('keeps records written without a TTL', async () => {
    const { keyv, map } = memoryStore();
    await keyv.set('flow:no-ttl', { id: 'no-ttl' });
    expect(map.sweep(Date.now() + 365 * 24 * hour)).toBe(0);
    expect(await keyv.get('flow:no-ttl')).toEqual({ id: 'no-ttl' });
  });

  it('reads a record past its expiry as missing before any sweep, as Keyv does', async () => {
    const { store, map } = memoryStore();
    await store.setRoute('short', 'f1', 1);
    await new Promise((resolveLater) => setTimeout(resolveLater, 5));
    expect(await store.getRoute('short')).toBeUndefined();
    expect(map.size).toBe(0);
  });

  it('does not keep the process alive, nor a map nobody uses', async () => {
    const here = dirname(fileURLToPath(import.meta.url));
    const child = fork(join(here, 'memory-exit.fixtures.ts'), [], {
      cwd: resolve(here, '../../../..'),
      execArgv: ['--import', 'tsx', '--conditions=@verikit/source', '--expose-gc'],
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // A timer that held the process would keep it running past the test's own timeout: end it
    // first, so the failure says what happened.
    const guard = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolveExit) =>
      child.once('exit', (exitCode, exitSignal) => resolveExit([exitCode, exitSignal])),
    );
    clearTimeout(guard);
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(JSON.parse(output)).toEqual({ collected: true });
  });
});
