/**
 * `pnpm bench memory-store`: what the embedded in-memory store holds, and gives back once flows expire.
 *
 * Every flow is one `compareAndSetFlow` of a record shaped like the one the engine writes for a phone
 * flow in `awaiting-code` (taken from a real engine run, only the id changed) plus one `setRoute`, both
 * with the same TTL: two entries per flow, as a USSD flow has. `global.gc()` runs before every reading.
 *
 * (a) Heap per flow at 100,000 flows, two rounds of each: the previous default (Keyv over a plain `Map`)
 *     beside today's `createMemoryKeyv()` (Keyv over an `ExpiringMap`: records and routes in the compact form of
 *     docs/decisions/1350-compact-memory-records.md, plus the expiry buckets). Then both are swept past the TTL: the plain Map still holds every
 *     entry, since Keyv deletes an expired key only when it is read.
 * (b) 1,000,000 flows through `createMemoryKeyv()`: heap of the empty store (baseline), with the flows,
 *     and after they have all expired and one sweep; the ratio after / baseline (goal <= 1.10).
 *     Expiry is not waited for: the sweep is given a `now` past every TTL.
 */
import { createVerikit, createMemoryKeyv, KeyvFlowStore, type FlowRecord } from '@verikit/core';
import { createTestProviderV1, ManualClock } from '@verikit/testing';
import { sized } from './mode.js';

type MemoryKeyv = ReturnType<typeof createMemoryKeyv>;
interface Sweepable {
  readonly size: number;
  sweep(now: number): number;
}

const ttlMs = 10 * 60_000;
const perFlowCount = sized(100_000, 10_000);
const expiryCount = sized(1_000_000, 50_000);

function heapUsed(): number {
  global.gc!();
  global.gc!();
  return process.memoryUsage().heapUsed;
}

const megabytes = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;

/** The record the engine writes when a phone flow starts, to copy with other ids. */
async function engineRecord(): Promise<FlowRecord> {
  const store = new KeyvFlowStore();
  const verikit = createVerikit({
    store,
    provider: createTestProviderV1(),
    secret: 'bench-secret-bench-secret-bench-secret',
    clock: new ManualClock(),
    guard: false,
  });
  const view = await verikit.start({ kind: 'phone', phoneNumber: '+2348030000000' });
  const record = await store.getFlow(view.id);
  if (record === undefined) throw new Error('the engine stored no record');
  return record;
}

/** The previous default, built with the same Keyv class: the same JSON records in a plain Map. */
function plainMapKeyv(): MemoryKeyv {
  const KeyvClass = createMemoryKeyv().constructor as new (options: Record<string, unknown>) => MemoryKeyv;
  return new KeyvClass({
    store: new Map(),
    serialize: JSON.stringify,
    deserialize: JSON.parse,
    throwOnErrors: true,
    namespace: 'verikit',
  });
}

async function fill(store: KeyvFlowStore, template: FlowRecord, count: number): Promise<void> {
  const stem = template.id.slice(0, -8);
  for (let index = 0; index < count; index += 1) {
    const id = `${stem}${index.toString(16).padStart(8, '0')}`;
    if (!(await store.compareAndSetFlow({ ...template, id }, 0, ttlMs))) throw new Error(`flow ${id} exists`);
    await store.setRoute(`ussd:+234803${String(index).padStart(7, '0')}`, id, ttlMs);
  }
}

async function perFlow(label: string, keyv: MemoryKeyv, template: FlowRecord): Promise<number> {
  const store = new KeyvFlowStore(keyv);
  const map = keyv.store as Map<string, string>;
  const before = heapUsed();
  await fill(store, template, perFlowCount);
  const bytes = (heapUsed() - before) / perFlowCount;
  const sweepable = map as unknown as Partial<Sweepable>;
  sweepable.sweep?.(Date.now() + ttlMs + 2000);
  console.log(
    `${label.padEnd(43)} ${Math.round(bytes)} bytes/flow, ${map.size.toLocaleString('en-US')} entries left after expiry`,
  );
  return bytes;
}

export async function run(): Promise<void> {
  const template = await engineRecord();
  console.log(
    `(a) heap per flow at ${perFlowCount.toLocaleString('en-US')} flows (record + route, TTL ${ttlMs / 60_000} min)`,
  );
  // Two rounds in turn: the first also pays for warming up, so the second is the one compared.
  const rounds: Array<[number, number]> = [];
  for (let round = 1; round <= 2; round += 1) {
    const plain = await perFlow(`round ${round}: plain Map (previous default)`, plainMapKeyv(), template);
    const expiring = await perFlow(`round ${round}: ExpiringMap (createMemoryKeyv)`, createMemoryKeyv(), template);
    rounds.push([plain, expiring]);
  }
  const [plain, expiring] = rounds.at(-1)!;
  console.log(`ratio ExpiringMap / plain Map (round 2)     ${(expiring / plain).toFixed(3)} (goal <= 1.00)`);

  console.log(
    `(b) ${expiryCount.toLocaleString('en-US')} flows through createMemoryKeyv(), then all expired and one sweep`,
  );
  const keyv = createMemoryKeyv();
  const store = new KeyvFlowStore(keyv);
  const map = keyv.store as unknown as Sweepable;
  await fill(store, template, 100); // warm the code paths before the baseline
  const warmSweep = Date.now() + ttlMs + 2000;
  map.sweep(warmSweep);
  const baseline = heapUsed();
  await fill(store, template, expiryCount);
  const filled = heapUsed();
  const entries = map.size;
  // A sweep deletes what is filed in the slots (1 s) before the one `now` falls in, and a record written already
  // expired for the last sweep is filed in the first slot not yet swept: a second sweep in the same slot as the
  // warm-up's found nothing ("0 deleted, 100,000 left" when the fill took under a second). Sweep a slot later.
  const started = performance.now();
  const deleted = map.sweep(Math.max(Date.now() + ttlMs + 2000, warmSweep + 1000));
  const sweepMs = performance.now() - started;
  if (map.size !== 0) throw new Error(`${map.size} entries left after a sweep past every expiry`);
  const after = heapUsed();
  console.log(`heap baseline (empty store)          ${megabytes(baseline)}`);
  console.log(`heap with the flows                  ${megabytes(filled)} (${entries.toLocaleString('en-US')} entries)`);
  console.log(
    `heap after expiry and one sweep      ${megabytes(after)} (${deleted.toLocaleString('en-US')} deleted in ${Math.round(sweepMs)} ms, ${map.size} left)`,
  );
  console.log(`ratio after / baseline               ${(after / baseline).toFixed(3)} (goal <= 1.10)`);
}
