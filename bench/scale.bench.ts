/**
 * `pnpm bench scale` (HEAVY: fills a store with 1,000,000 flows, about 1 GB of heap in a child process):
 * one user action at 10k, 100k and 1M stored flows. Row 3 of issue 10's table.
 *
 * Each size lives in its own child process (its own heap: garbage collection is per heap, so sizes in
 * one process would pay for each other). A child starts one phone flow through the engine, then stores
 * copies of that record under fresh ids (and a send counter per number, as a start does) through the
 * store's own `compareAndSetFlow` and `consume`, until it holds its size. The parent then asks the
 * children in turn, round after round, to run the action: a wrong `submit-code` (`verikit.send`: load,
 * parse, transition, compare-and-set, view) on flows picked at random among all stored ones, and on a
 * hot set of the 1,000 newest. Each child answers with its CPU microseconds per action (process.cpuUsage,
 * garbage collection threads included); printed: medians per size, and the ratio 1M / 10k.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createVerikit, KeyvFlowStore, type FlowRecord, type Verikit } from '@verikit/core';
import { createTestProviderV1, ManualClock } from '@verikit/testing';
import { BenchChild } from './child.js';
import { sized } from './mode.js';
import { median, type SummaryRow } from './summary.js';

const childFlag = 'VERIKIT_SCALE_BENCH_SIZE';
const sizes = sized([10_000, 100_000, 1_000_000], [2_000, 20_000]);
const rounds = sized(5, 2);
const actionsPerRound = sized(10_000, 1_000);
const hotSetSize = sized(1000, 200);
const secret = 'bench-secret-bench-secret-bench-secret';

type Pattern = 'random' | 'hot';
type Request = { pattern: Pattern };
type Answer = { ready: true; fillSeconds: number; heapMb: number } | { cpuMicrosPerAction: number };

function phoneNumber(index: number): string {
  return `+234803${String(index % 10_000_000).padStart(7, '0')}`;
}

/** The child: `size` flows, then one round of actions per request. */
async function serve(size: number): Promise<void> {
  const clock = new ManualClock();
  const policies = { maxAttempts: 100, maxSendsPerHour: 1_000_000 };
  // No send guard: it would refuse the millionth start (its global limit is 1,000 sends an hour); the guard's own
  // cost is `pnpm bench guard`.
  const store = new KeyvFlowStore();
  const verikit: Verikit = createVerikit({
    provider: createTestProviderV1(),
    secret,
    clock,
    policies,
    store,
    guard: false,
  });
  const started = performance.now();
  const first = await verikit.start({ kind: 'phone', phoneNumber: phoneNumber(size) });
  const template = (await store.getFlow(first.id))!;
  const ttl = 24 * 3600_000;
  const ids: string[] = [];
  for (let index = 0; index < size; index += 1) {
    const id = randomBytes(16).toString('base64url');
    const phone = phoneNumber(index);
    const record: FlowRecord = { ...template, id, context: { ...template.context, flowId: id, phoneNumber: phone } };
    await store.compareAndSetFlow(record, 0, ttl);
    await store.consume(`sends:${phone}`, policies.maxSendsPerHour, 3600_000, clock.now());
    ids.push(id);
  }
  const fillSeconds = (performance.now() - started) / 1000;
  (globalThis as { gc?: () => void }).gc?.();
  process.send!({ ready: true, fillSeconds, heapMb: process.memoryUsage().heapUsed / 1e6 } satisfies Answer);
  let seed = size;
  const nextRandom = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  process.on('message', async ({ pattern }: Request) => {
    const pick =
      pattern === 'random'
        ? () => Math.floor(nextRandom() * ids.length)
        : () => ids.length - 1 - Math.floor(nextRandom() * hotSetSize);
    const before = process.cpuUsage();
    for (let action = 0; action < actionsPerRound; action += 1) {
      const index = pick();
      const view = await verikit.send(ids[index]!, { type: 'submit-code', code: '000000' });
      // Keep the flows open: a flow at its last attempt is replaced by a new one (a start, as users do).
      if ((view.attemptsLeft ?? 0) <= 1)
        ids[index] = (await verikit.start({ kind: 'phone', phoneNumber: phoneNumber(size + ids.length + action) })).id;
    }
    const used = process.cpuUsage(before);
    process.send!({ cpuMicrosPerAction: (used.user + used.system) / actionsPerRound } satisfies Answer);
  });
}

async function ask(child: BenchChild, pattern: Pattern): Promise<number> {
  const answer = await child.ask<{ cpuMicrosPerAction: number }>({ pattern } satisfies Request);
  return answer.cpuMicrosPerAction;
}

/** Row 3: see the file comment. */
export async function run(): Promise<SummaryRow[]> {
  console.log(
    `HEAVY: ${sizes.map((size) => size.toLocaleString('en-US')).join(' / ')} stored phone flows, one child process each (up to ~1 GB heap)`,
  );
  const children: BenchChild[] = [];
  try {
    for (const size of sizes) {
      const child = new BenchChild(`${size} flows`, fileURLToPath(import.meta.url), { [childFlag]: String(size) }, [
        '--max-old-space-size=6144',
      ]);
      children.push(child);
      const ready = await child.next<{ fillSeconds: number; heapMb: number }>();
      console.log(
        `${size.toLocaleString('en-US').padStart(9)} flows stored in ${ready.fillSeconds.toFixed(1)} s, heap ${ready.heapMb.toFixed(0)} MB`,
      );
    }
    const results: Record<Pattern, number[][]> = { random: sizes.map(() => []), hot: sizes.map(() => []) };
    for (const pattern of ['random', 'hot'] as const) await Promise.all(children.map((child) => ask(child, pattern))); // warm-up
    for (let round = 0; round < rounds; round += 1) {
      for (const pattern of ['random', 'hot'] as const) {
        for (const [index, child] of children.entries()) results[pattern][index]!.push(await ask(child, pattern));
      }
    }
    console.log(
      `action: a wrong submit-code, ${actionsPerRound.toLocaleString('en-US')} per round, ${rounds} rounds alternating between the sizes; CPU µs per action (median)`,
    );
    for (const pattern of ['random', 'hot'] as const) {
      const medians = results[pattern].map((values) => median(values));
      const label =
        pattern === 'random' ? 'flows picked at random among all' : `flows picked among the ${hotSetSize} newest`;
      console.log(
        `${label.padEnd(40)} ${medians.map((value, index) => `${sizes[index]!.toLocaleString('en-US')}: ${value.toFixed(1)} µs`).join('   ')}   ratio largest / smallest ${(medians.at(-1)! / medians[0]!).toFixed(2)}`,
      );
    }
    const random = results.random.map((values) => median(values));
    const ratio = random.at(-1)! / random[0]!;
    const count = (size: number) => size.toLocaleString('en-US');
    return [
      {
        measure: `one user action at ${count(sizes.at(-1)!)} stored flows vs ${count(sizes[0]!)}`,
        value: `${random.at(-1)!.toFixed(1)} CPU-µs/action`,
        baseline: `${random[0]!.toFixed(1)} CPU-µs/action`,
        ratio,
        goal: '≤ 1.3x',
        met: ratio <= 1.3,
      },
    ];
  } finally {
    for (const child of children) child.stop();
  }
}

if (process.env[childFlag] !== undefined) await serve(Number(process.env[childFlag]));
