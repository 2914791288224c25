/**
 * `pnpm bench engine`: the engine's event rate beside a bare XState transition with a JSON round trip of
 * the same machine, and the heap each persisted flow costs in the in-memory store.
 *
 * (a) The measured event is a wrong `submit-code` on a BVN flow in `awaiting-code`: no provider call, but
 *     the whole path runs (validate, hash the code, load and parse the record, tick check, transition,
 *     compare-and-set, serialize, view with `allowed`, publish). The baseline does, for the same event on
 *     the same machine: parse the stored JSON, `machine.resolveState`, `transition`, stringify the next
 *     snapshot. The two alternate for several rounds; medians are printed, and their ratio. A second
 *     baseline does the same through `createPureTransitions` (one inert scope per machine, as the engine
 *     does: docs/decisions/0007-one-inert-scope-per-machine.md), so the engine's own overhead shows too.
 * (b) Heap: 100,000 flows started through the engine with the test double (each to `awaiting-code`, one
 *     phone number each), `global.gc()` before and after, divided by the number of flows.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { createVerikit, defaultPolicies, type FlowPolicies, type KeyvFlowStore, type Verikit } from '@verikit/core';
import { createIdentityMachine, createPureTransitions } from '@verikit/core/flows';
import { createTestProviderV1, ManualClock } from '@verikit/testing';

type IdentityMachine = ReturnType<typeof createIdentityMachine>;
type Snapshot = ReturnType<IdentityMachine['resolveState']>;
type Transition = (machine: IdentityMachine, snapshot: Snapshot, event: unknown) => [Snapshot, unknown[]];

// xstate is a dependency of @verikit/core, not of the root: load the copy the engine uses.
const requireFromCore = createRequire(fileURLToPath(new URL('../packages/core/package.json', import.meta.url)));
const { transition } = requireFromCore('xstate') as { transition: Transition };

const secret = 'bench-secret-bench-secret-bench-secret';
const rounds = 7;
const flowsPerRound = 500;
// Many attempts, so a round of wrong codes never locks a flow: every measured event is the same self-transition.
const attemptsPerFlow = 40;
const policies: Partial<FlowPolicies> = { maxAttempts: 100, maxSendsPerHour: 1_000_000 };
const heapFlows = 100_000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function bvn(index: number): string {
  return `2${String(index).padStart(10, '0')}`;
}

function phoneNumber(index: number): string {
  return `+23480${String(index).padStart(8, '0')}`;
}

function gc(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) throw new Error('run with --expose-gc (`pnpm bench` passes it)');
  collect();
  collect();
}

function createEngine(): Verikit {
  return createVerikit({ provider: createTestProviderV1(), secret, clock: new ManualClock(), policies, guard: false });
}

async function startIdentityFlows(verikit: Verikit, count: number, offset: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const view = await verikit.start({ kind: 'identity', idType: 'bvn', number: bvn(offset + index) });
    if (view.status !== 'awaiting-code') throw new Error(`expected awaiting-code, got ${view.status}`);
    ids.push(view.id);
  }
  return ids;
}

/** Wrong codes, round-robin over the flows; returns events per second. */
async function measureEngine(verikit: Verikit, ids: string[]): Promise<number> {
  const started = performance.now();
  let events = 0;
  for (let attempt = 0; attempt < attemptsPerFlow; attempt += 1) {
    for (const id of ids) {
      await verikit.send(id, { type: 'submit-code', code: '000000' });
      events += 1;
    }
  }
  return events / ((performance.now() - started) / 1000);
}

/** The same event on the same machine with nothing but a JSON round trip around `transition`. */
function measureBaseline(machine: IdentityMachine, storedSnapshots: string[], step: Transition = transition): number {
  const stored = [...storedSnapshots];
  const codeHash = 'f'.repeat(32);
  const started = performance.now();
  let events = 0;
  for (let attempt = 0; attempt < attemptsPerFlow; attempt += 1) {
    for (let index = 0; index < stored.length; index += 1) {
      const snapshot = machine.resolveState(JSON.parse(stored[index]!) as Parameters<IdentityMachine['resolveState']>[0]);
      const [next] = step(machine, snapshot, { type: 'submit-code', now: snapshot.context.expiresAt! - 1, codeHash });
      if (next === snapshot) throw new Error('the baseline event changed nothing');
      stored[index] = JSON.stringify({ value: next.value, context: next.context });
      events += 1;
    }
  }
  return events / ((performance.now() - started) / 1000);
}

async function benchEvents(): Promise<void> {
  const verikit = createEngine();
  const machine = createIdentityMachine({ ...defaultPolicies, ...policies });
  const engineRates: number[] = [];
  const baselineRates: number[] = [];
  const sharedScopeRates: number[] = [];
  const ratios: number[] = [];
  const sharedScopeRatios: number[] = [];
  const pure = createPureTransitions(machine);
  const sharedScope: Transition = (_machine, snapshot, event) => pure.next(snapshot, event) as [Snapshot, unknown[]];
  // Warm-up: one round of each, not counted.
  const warm = await startIdentityFlows(verikit, flowsPerRound, 0);
  await measureEngine(verikit, warm);
  for (let round = 0; round < rounds; round += 1) {
    const ids = await startIdentityFlows(verikit, flowsPerRound, (round + 1) * flowsPerRound);
    const records = await Promise.all(ids.map((id) => verikit.store.getFlow(id)));
    const stored = records.map((record) => JSON.stringify({ value: record!.value, context: record!.context }));
    if (round === 0) measureBaseline(machine, stored);
    const engineRate = await measureEngine(verikit, ids);
    const baselineRate = measureBaseline(machine, stored);
    const sharedScopeRate = measureBaseline(machine, stored, sharedScope);
    engineRates.push(engineRate);
    baselineRates.push(baselineRate);
    sharedScopeRates.push(sharedScopeRate);
    ratios.push(engineRate / baselineRate);
    sharedScopeRatios.push(engineRate / sharedScopeRate);
  }
  const format = (value: number) => Math.round(value).toLocaleString('en-US');
  console.log(`event: wrong submit-code on BVN flows in awaiting-code, ${flowsPerRound} flows x ${attemptsPerFlow} events per round, ${rounds} rounds`);
  console.log(`engine (in-memory store)           ${format(median(engineRates))} events/s   rounds: ${engineRates.map(format).join(' ')}`);
  console.log(`bare transition + JSON round trip  ${format(median(baselineRates))} events/s   rounds: ${baselineRates.map(format).join(' ')}`);
  console.log(`  same, one shared scope (as engine) ${format(median(sharedScopeRates))} events/s   rounds: ${sharedScopeRates.map(format).join(' ')}`);
  console.log(`ratio engine / bare                ${median(ratios).toFixed(3)} (median of per-round ratios; target >= 0.4)`);
  console.log(`ratio engine / shared-scope bare   ${median(sharedScopeRatios).toFixed(3)} (the engine's own overhead beyond the transition and JSON)`);
}

async function benchHeap(): Promise<void> {
  const provider = createTestProviderV1();
  const verikit = createVerikit({ provider, secret, clock: new ManualClock(), policies, guard: false });
  // Warm the code paths (and their caches) before the first heap reading.
  for (let index = 0; index < 100; index += 1) await verikit.start({ kind: 'phone', phoneNumber: phoneNumber(heapFlows + index) });
  provider.reset();
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let index = 0; index < heapFlows; index += 1) {
    const view = await verikit.start({ kind: 'phone', phoneNumber: phoneNumber(index) });
    if (view.status !== 'awaiting-code') throw new Error(`expected awaiting-code, got ${view.status}`);
  }
  // The test double records every call and message: forget them, they are not the engine's.
  provider.reset();
  gc();
  const after = process.memoryUsage().heapUsed;
  console.log(`heap: ${heapFlows.toLocaleString('en-US')} phone flows in awaiting-code, each with its own per-number send counter`);
  console.log(`heap per persisted flow            ${Math.round((after - before) / heapFlows)} bytes (target <= 1024)`);
  // Where the bytes are: the characters of the keys and serialized values the store holds, per flow.
  const entries = [...((verikit.store as KeyvFlowStore).keyv.store as Map<string, unknown>)];
  for (const prefix of ['verikit:flow:', 'verikit:limit:']) {
    const matching = entries.filter(([key]) => key.startsWith(prefix));
    const characters = matching.reduce((sum, [key, value]) => sum + key.length + String(value).length, 0);
    console.log(`  ${prefix.padEnd(32)} ${matching.length.toLocaleString('en-US')} entries, ${Math.round(characters / matching.length)} characters each (key + stored string)`);
  }
}

export async function run(): Promise<void> {
  await benchEvents();
  await benchHeap();
}
