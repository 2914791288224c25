/**
 * Run as a child process by memory-expiry.test.ts, with `--expose-gc`: fills the default store with
 * records that expire in an hour, so the sweep timer is armed, then lets the event loop run dry.
 * The process must exit on its own. Before that it checks the timer does not hold a map nobody
 * uses, and prints `{"collected":true|false}`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { KeyvFlowStore, createMemoryKeyv } from '../keyv-flow-store.js';

const store = new KeyvFlowStore(createMemoryKeyv());
const hour = 60 * 60_000;
const now = Date.now();
await store.compareAndSetFlow(
  {
    schemaVersion: 1,
    id: 'exit-check',
    kind: 'phone',
    version: 1,
    value: 'awaiting-code',
    context: {},
    createdAt: now,
    updatedAt: now,
  },
  0,
  hour,
);
await store.setRoute('ussd:+2348012345678', 'exit-check', hour);
await store.claim('webhook:exit-check', hour);

// In a function: a block's locals in a module with top-level await can outlive the block.
async function droppedStore(): Promise<WeakRef<object>> {
  const keyv = createMemoryKeyv();
  await keyv.set('k', 'v', hour);
  return new WeakRef(keyv.store as object);
}
const dropped = await droppedStore();
await sleep(10);
(globalThis as { gc?: () => void }).gc?.();
await sleep(10);
console.log(JSON.stringify({ collected: dropped.deref() === undefined }));
