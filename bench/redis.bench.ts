/**
 * `pnpm bench redis`: the engine on the Redis store against raw node-redis, measured in the same run.
 *
 * 1. Throughput at 64 in flight, across 64 flows (one event in flight per flow, so none is refused):
 *    - baseline: a raw node-redis client doing what one committed engine event needs from Redis, a GET
 *      of the record and an EVALSHA of the same compare-and-set script with a record of the same size;
 *    - engine: `verikit.send(flowId, { type: 'submit-code' })` on phone flows (test double provider,
 *      no latency), through `createRedisStore` and `createRedisChangeBus`. Each such user action is two
 *      committed events (the submit, then the provider's answer), each one EVALSHA of the compare-and-set script,
 *      which asks whether anybody follows the flow (docs/decisions/1400-no-view-for-a-flow-nobody-follows.md); the
 *      submit starts from the record this instance committed last, without a GET
 *      (docs/decisions/1430-start-from-the-record-committed-here.md).
 *    The baseline's record is the engine's (same bytes but for its version and time), so both arms send and
 *    serialize as much. The ratio compares committed engine events/s with raw GET + EVALSHA pairs/s: the two arms
 *    run in rounds (6, 3 in the short mode); a round gives each arm 12 windows of 250 ms (4 of 125 ms in the short
 *    mode), interleaved with the other arms' (the order rotating), so that the load moving on a shared host falls
 *    on both arms alike (docs/decisions/1980-redis-rounds-of-interleaved-windows.md); an arm's rate in a round is its
 *    operations over its windows' time. The figure is the median of the rounds' ratios, and the goal (issue 38) is
 *    ≥ 0.7 in every round, so the lowest round is what is checked.
 * 2. Pub/sub delay: from A's local listener (called once the compare-and-set script answered) to the
 *    listener on instance B, over loopback; median and p99. B may hear first (the script publishes): 0 ms.
 *
 * 3. Redis Cluster (3 masters, 3 replicas, all on this machine): the same engine load on the cluster
 *    with sharded and with classic pub/sub, beside the single node, measured alternately in this run.
 *    The cluster is `REDIS_CLUSTER_URLS`, or a private one started (and stopped) by the bench.
 *
 * Skips with a printed reason when Redis is unreachable. Also printed: the same engine on the
 * in-process store, to show how much of the gap is the engine's own CPU rather than Redis.
 *
 * All of it runs in one child process on the published build (the `dist/` of provider, core, testing and redis,
 * built first by bench/build.ts), both arms in the same process in alternating rounds: the source through tsx costs
 * the engine 6–15% more CPU per event than what users run (docs/decisions/1380-redis-bench-on-the-published-build.md).
 *
 * Found while profiling (see the report of issue 4 and docs/scaling.md): the engine's CPU dominates.
 * xstate's pure `transition()` builds a throw-away actor per call (~140 µs against ~15 µs for the
 * transition itself); the engine now reuses one inert scope per machine
 * (docs/decisions/0007-one-inert-scope-per-machine.md), which made it about 2.4x faster.
 * On the Redis side a committed event costs what a raw pair costs (GET 0.4 µs, the CAS EVALSHA 7 µs,
 * PUBLISH 0.3 µs of Redis time).
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createVerikit, type FlowRecord, type FlowView, type Verikit } from '@verikit/core';
import {
  createRedisChangeBus,
  createRedisClusterStore,
  createRedisStore,
  type PubSubMode,
  type RedisFlowStore,
} from '@verikit/redis';
import { createTestProviderV1 } from '@verikit/testing';
import { createClient } from 'redis';
import { buildPackages } from './build.js';
import { BenchChild } from './child.js';
import { isShort, sized } from './mode.js';
import { wrongCodes } from './wrong-codes.js';
import { clusterUrls, deleteClusterNamespace, PrivateCluster } from '../packages/redis/src/redis-cluster.fixtures.js';
import { median, type SummaryRow } from './summary.js';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const inFlight = 64;
const measureMs = Number(process.env.BENCH_REDIS_MS ?? sized(3000, 500));
const warmupMs = sized(700, 200);
const rounds = sized(6, 3);
/** Windows per arm in a round, interleaved: 12 of 250 ms (4 of 125 ms in the short mode). */
const windows = sized(12, 4);
const secret = 'bench-redis-secret-0123456789abcdefghijk';
/** Set in the child that measures; the parent builds the packages and forks it. */
const childFlag = 'VERIKIT_REDIS_BENCH_CHILD';

function phoneNumber(index: number): string {
  return `+2348031${String(index).padStart(6, '0')}`;
}

/**
 * Runs `inFlight` loops of `step` for `ms`; returns the operations and the seconds they took (until the last ended).
 */
async function throughput(
  step: (lane: number) => Promise<unknown>,
  ms: number,
): Promise<{ operations: number; seconds: number }> {
  let operations = 0;
  const until = performance.now() + ms;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async (_, lane) => {
      while (performance.now() < until) {
        await step(lane);
        operations += 1;
      }
    }),
  );
  return { operations, seconds: (performance.now() - started) / 1000 };
}

/** Operations per second of `step` over `ms`. */
async function rate(step: (lane: number) => Promise<unknown>, ms: number): Promise<number> {
  const { operations, seconds } = await throughput(step, ms);
  return operations / seconds;
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
}

async function deleteNamespace(client: ReturnType<typeof createClient>, namespace: string): Promise<void> {
  for await (const keys of client.scanIterator({ MATCH: `${namespace}::*`, COUNT: 1000 })) {
    if (keys.length > 0) await client.unlink(keys);
  }
}

/** Row 4 of issue 10's table, and the figures around it, measured in a child on the published build. */
export async function run(): Promise<SummaryRow[]> {
  const removeBuild = buildPackages(['provider', 'core', 'testing', 'redis']);
  const child = new BenchChild('Redis bench', fileURLToPath(import.meta.url), { [childFlag]: '1' }, [], true);
  try {
    return await child.next<SummaryRow[]>();
  } finally {
    child.stop();
    removeBuild();
  }
}

/** The engine's modules must be the built ones: a child that measures the source would say so only in its figures. */
function assertPublishedBuild(): void {
  for (const name of ['@verikit/core', '@verikit/redis']) {
    const resolved = fileURLToPath(import.meta.resolve(name));
    if (!resolved.includes('/dist/'))
      throw new Error(`the Redis bench child imports ${name} from ${resolved}, not dist/`);
  }
  console.log('engine: the published build (dist/ of @verikit/core and @verikit/redis)');
}

/** The child's whole bench: throughput, pub/sub delay and the cluster; returns the summary rows. */
async function measure(): Promise<SummaryRow[]> {
  assertPublishedBuild();
  const measure = 'committed events/s on Redis, 64 in flight';
  const goal = '≥ 0.7 every round';
  const rows: SummaryRow[] = [];
  const raw = createClient({ url, socket: { connectTimeout: 1000, reconnectStrategy: false } });
  raw.on('error', () => {});
  try {
    await raw.connect();
  } catch (error) {
    console.log(
      `skipped: Redis at ${url} is not reachable (${error instanceof Error ? error.message : String(error)}); set REDIS_URL or start redis-server`,
    );
    return [{ measure, value: 'Redis unreachable', baseline: '—', ratio: undefined, goal, met: undefined }];
  }
  const namespace = `vk-bench-${process.pid}-${randomUUID().slice(0, 8)}`;
  const stores: RedisFlowStore[] = [];
  const engines: Verikit[] = [];
  try {
    const instance = (policies: Record<string, number> = {}) => {
      const provider = createTestProviderV1();
      const store = createRedisStore({ url, namespace });
      const changeBus = createRedisChangeBus({ store });
      stores.push(store);
      const verikit = createVerikit({
        provider,
        store,
        changeBus,
        secret,
        policies: {
          maxAttempts: 100,
          maxSendsPerFlow: 100,
          resendCooldownMs: 0,
          maxSendsPerHour: 1_000_000,
          ...policies,
        },
        guard: false,
      });
      engines.push(verikit);
      return { provider, store, changeBus, verikit };
    };

    // --- throughput ---
    const a = instance();
    const flows = await Promise.all(
      Array.from({ length: inFlight }, (_, index) =>
        a.verikit.start({ kind: 'phone', phoneNumber: phoneNumber(index) }),
      ),
    );
    const sample = (await a.store.getFlow(flows[0]!.id)) as FlowRecord;
    const recordBytes = (await raw.get(a.store.redisKey(`flow:${sample.id}`)))!.length;

    const { compareAndSetScript } = await import('../packages/redis/src/lua-script.js');
    await raw.scriptLoad(compareAndSetScript.source);
    const baselineKeys = Array.from({ length: inFlight }, (_, lane) => `${namespace}::bench:${lane}`);
    // The engine's own record (its id too): the same bytes to send, parse and serialize.
    const baselineRecord = { ...sample };
    const baselineVersions = baselineKeys.map(() => 0);
    const baselineStep = async (lane: number) => {
      const key = baselineKeys[lane]!;
      const current = await raw.get(key);
      const version = current === null ? 0 : (JSON.parse(current) as { value: { version: number } }).value.version;
      const next = { ...baselineRecord, version: version + 1, updatedAt: Date.now() };
      await raw.evalSha(compareAndSetScript.sha, {
        keys: [key],
        arguments: [String(version), JSON.stringify({ value: next, expires: Date.now() + 86_400_000 }), '86400000'],
      });
      baselineVersions[lane] = version + 1;
    };
    const engineStep = wrongCodes(
      a.verikit,
      flows.map((flow) => flow.id),
      phoneNumber,
    );
    // The same engine on the in-process store: what the engine costs without Redis.
    const memory = createVerikit({
      provider: createTestProviderV1(),
      secret,
      policies: { maxAttempts: 100, maxSendsPerFlow: 100, resendCooldownMs: 0, maxSendsPerHour: 1_000_000 },
      guard: false,
    });
    const memoryFlows = await Promise.all(
      Array.from({ length: inFlight }, (_, index) => memory.start({ kind: 'phone', phoneNumber: phoneNumber(index) })),
    );
    const memoryStep = wrongCodes(
      memory,
      memoryFlows.map((flow) => flow.id),
      phoneNumber,
    );

    await throughput(baselineStep, warmupMs);
    await throughput(engineStep, warmupMs);
    await throughput(memoryStep, warmupMs);
    const arms = { baseline: baselineStep, engine: engineStep, memory: memoryStep };
    type Arm = keyof typeof arms;
    const order: Arm[] = ['baseline', 'engine', 'memory'];
    const runs: Record<Arm, number[]> = { baseline: [], engine: [], memory: [] };
    const cpuPerOperation: Record<Arm, number[]> = { baseline: [], engine: [], memory: [] };
    // A round is `windows` short windows per arm, interleaved, so that the load moving on this shared host falls on
    // all the arms alike (one 3 s window per arm let it fall on one arm: docs/decisions/1980-…-interleaved-windows.md).
    // The arms' order rotates every window and starts one further every round; an arm's rate in a round is its
    // operations over its windows' time, its CPU the same windows' `process.cpuUsage`.
    for (let round = 0; round < rounds; round += 1) {
      const totals = Object.fromEntries(order.map((arm) => [arm, { operations: 0, seconds: 0, cpu: 0 }])) as Record<
        Arm,
        { operations: number; seconds: number; cpu: number }
      >;
      for (let window = 0; window < windows; window += 1) {
        for (let index = 0; index < order.length; index += 1) {
          const arm = order[(round + window + index) % order.length]!;
          const before = process.cpuUsage();
          const { operations, seconds } = await throughput(arms[arm], measureMs / windows);
          const used = process.cpuUsage(before);
          totals[arm].operations += operations;
          totals[arm].seconds += seconds;
          totals[arm].cpu += used.user + used.system;
        }
      }
      for (const arm of order) {
        runs[arm].push(totals[arm].operations / totals[arm].seconds);
        cpuPerOperation[arm].push(totals[arm].cpu / totals[arm].operations);
      }
    }
    const { baseline: baselineRuns, engine: engineRuns, memory: memoryRuns } = runs;
    const list = (values: number[], digits = 0) => values.map((value) => value.toFixed(digits)).join(', ');
    const ratios = engineRuns.map((actions, round) => (2 * actions) / baselineRuns[round]!);
    const baseline = median(baselineRuns);
    const actions = median(engineRuns);
    const memoryActions = median(memoryRuns);
    const committed = actions * 2;
    console.log(`record size: ${recordBytes} bytes (Keyv envelope)`);
    console.log(
      `raw node-redis GET + EVALSHA, ${inFlight} in flight: ${list(baselineRuns)} pairs/s → median ${baseline.toFixed(0)} pairs/s`,
    );
    console.log(
      `engine on Redis, submit-code, ${inFlight} in flight: ${list(engineRuns)} actions/s → median ${actions.toFixed(0)} actions/s = ${committed.toFixed(0)} committed events/s`,
    );
    console.log(
      `engine in-process (Keyv Map), same load: ${list(memoryRuns)} actions/s → median ${memoryActions.toFixed(0)} actions/s = ${(memoryActions * 2).toFixed(0)} committed events/s`,
    );
    const ratio = median(ratios);
    const lowest = Math.min(...ratios);
    console.log(
      `ratio committed engine events on Redis / raw pairs, per round: ${list(ratios, 2)} → median ${ratio.toFixed(2)}, lowest ${lowest.toFixed(2)} (goal ≥ 0.7 in every round)`,
    );
    console.log(`ratio engine on Redis / engine in-process: ${(actions / memoryActions).toFixed(2)}`);
    // Per action: two committed events.
    const engineCpu = median(cpuPerOperation.engine) / 2;
    const pairCpu = median(cpuPerOperation.baseline);
    console.log(
      `this process's CPU (median of rounds): ${engineCpu.toFixed(1)} µs per committed engine event, ${pairCpu.toFixed(1)} µs per raw pair (${(engineCpu / pairCpu).toFixed(1)}x)`,
    );
    rows.push({
      measure,
      value: `${Math.round(committed).toLocaleString('en-US')} events/s`,
      baseline: `${Math.round(baseline).toLocaleString('en-US')} raw GET + EVALSHA pairs/s`,
      ratio: lowest,
      goal,
      met: lowest >= 0.7,
    });

    // --- pub/sub delay, A → B ---
    const b = instance();
    // Flows of their own: the throughput lanes may have used theirs up (wrong-codes.ts).
    const watchedFlows = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        a.verikit.start({ kind: 'phone', phoneNumber: phoneNumber(inFlight + index) }),
      ),
    );
    // The compare-and-set script publishes the change (docs/decisions/1200-one-script-per-commit.md): B may hear of it
    // before A's own listener runs. Whichever of the two comes second records the delay; B first counts as 0 ms.
    const heardAt = { a: new Map<string, number>(), b: new Map<string, number>() };
    const delays: number[] = [];
    let onReceived: () => void = () => {};
    const heard = (side: 'a' | 'b') => (view: FlowView) => {
      const key = `${view.id}:${view.version}`;
      const other = heardAt[side === 'a' ? 'b' : 'a'].get(key);
      if (other === undefined) heardAt[side].set(key, performance.now());
      else {
        delays.push(side === 'b' ? performance.now() - other : 0);
        onReceived();
      }
    };
    for (const flow of watchedFlows) {
      a.changeBus.subscribe(flow.id, heard('a'));
      b.changeBus.subscribe(flow.id, heard('b'));
    }
    await Promise.all(watchedFlows.map((flow) => b.changeBus.subscribed(flow.id)));
    const samples = sized(2000, 200);
    for (let index = 0; index < samples / 2; index += 1) {
      const flow = watchedFlows[index % watchedFlows.length]!;
      const expected = delays.length + 2;
      const received = new Promise<void>((resolve) => {
        onReceived = () => {
          if (delays.length >= expected) resolve();
        };
      });
      const view = await a.verikit.send(flow.id, { type: 'submit-code', code: '000000' });
      if ((view.attemptsLeft ?? 0) <= 1) {
        await a.verikit.send(view.id, { type: 'resend' });
        continue;
      }
      await received;
    }
    const sorted = [...delays].sort((x, y) => x - y);
    console.log(
      `pub/sub delay A → B (${sorted.length} changes, loopback, one at a time): median ${percentile(sorted, 0.5).toFixed(3)} ms, p99 ${percentile(sorted, 0.99).toFixed(3)} ms`,
    );
  } finally {
    // The engines first: their timers poll the store every second, and a pass on a closed store fails (and says so).
    for (const engine of engines) await engine.close();
    for (const store of stores) await store.close().catch(() => undefined);
    await deleteNamespace(raw, namespace);
    raw.destroy();
  }
  // The short mode (CI) leaves the cluster out: starting six Redis servers is not what it checks.
  if (!isShort()) await clusterBench();
  return rows;
}

/** Committed events/s of the engine (submit-code at 64 in flight) on `store`, with a change bus in `pubSub` mode. */
async function engineLoad(store: RedisFlowStore, pubSub: PubSubMode | undefined) {
  const changeBus = createRedisChangeBus({ store, ...(pubSub ? { pubSub } : {}) });
  const policies = { maxAttempts: 100, maxSendsPerFlow: 100, resendCooldownMs: 0, maxSendsPerHour: 1_000_000 };
  const verikit = createVerikit({ provider: createTestProviderV1(), store, changeBus, secret, policies, guard: false });
  const flows = await Promise.all(
    Array.from({ length: inFlight }, (_, index) => verikit.start({ kind: 'phone', phoneNumber: phoneNumber(index) })),
  );
  const step = wrongCodes(
    verikit,
    flows.map((flow) => flow.id),
    phoneNumber,
  );
  await throughput(step, warmupMs);
  return {
    measure: async () => 2 * (await rate(step, measureMs)),
    // The engine before its bus and store: its timers stop polling the store, which closes after.
    close: async () => {
      await verikit.close();
      await changeBus.close();
    },
  };
}

async function clusterBench(): Promise<void> {
  let cluster: PrivateCluster | undefined;
  let urls = clusterUrls;
  if (urls.length === 0) {
    try {
      cluster = await PrivateCluster.start();
      urls = cluster.urls;
    } catch (error) {
      console.log(
        `cluster: skipped (no REDIS_CLUSTER_URLS and no private cluster: ${error instanceof Error ? error.message.split('\n')[0] : String(error)})`,
      );
      return;
    }
  }
  const namespace = `vk-bench-cluster-${process.pid}-${randomUUID().slice(0, 8)}`;
  const single = createRedisStore({ url, namespace });
  const sharded = createRedisClusterStore({ urls, namespace: `${namespace}-s` });
  const classic = createRedisClusterStore({ urls, namespace: `${namespace}-c` });
  const loads = [
    await engineLoad(single, undefined),
    await engineLoad(sharded, 'sharded'),
    await engineLoad(classic, 'classic'),
  ];
  try {
    const runs: number[][] = [[], [], []];
    for (let round = 0; round < 2; round += 1)
      for (const [index, load] of loads.entries()) runs[index]!.push(await load.measure());
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    const [one, shard, broadcast] = runs.map(mean) as [number, number, number];
    console.log(
      `cluster: ${cluster ? 'private' : 'REDIS_CLUSTER_URLS'}, 3 masters + 3 replicas on this machine; engine submit-code, ${inFlight} in flight`,
    );
    console.log(`single node:                 ${one.toFixed(0)} committed events/s`);
    console.log(
      `cluster, sharded pub/sub:    ${shard.toFixed(0)} committed events/s → ratio cluster / single node ${(shard / one).toFixed(2)}`,
    );
    console.log(
      `cluster, classic pub/sub:    ${broadcast.toFixed(0)} committed events/s → ratio cluster / single node ${(broadcast / one).toFixed(2)}`,
    );
    console.log(`ratio sharded / classic pub/sub on the cluster: ${(shard / broadcast).toFixed(2)}`);
  } finally {
    for (const load of loads) await load.close();
    for (const store of [single, sharded, classic]) await store.close().catch(() => undefined);
    // The single node's flows too (they were left behind, a day's TTL each, before).
    const cleaner = createClient({ url });
    await cleaner
      .connect()
      .then(() => deleteNamespace(cleaner, namespace))
      .catch(() => undefined);
    if (cleaner.isOpen) cleaner.destroy();
    await deleteClusterNamespace(urls, `${namespace}-s`).catch(() => undefined);
    await deleteClusterNamespace(urls, `${namespace}-c`).catch(() => undefined);
    await cluster?.stop();
  }
}

if (process.env[childFlag] !== undefined) process.send!(await measure());
