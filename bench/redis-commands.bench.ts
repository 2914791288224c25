/**
 * `pnpm bench redis-commands`: the Redis commands and the Redis CPU one whole phone verification costs, counted by
 * Redis itself (issue 38). A verification is a start (to a number and a client of its own), then the right code.
 *
 * The bench starts a private `redis-server` on a free port, so that nothing else on this machine is counted, and
 * reads `INFO commandstats` before and after each arm: the calls per command and the microseconds Redis spent in
 * them (`usec`), plus the server's whole CPU (`INFO cpu`, which also holds its idle housekeeping). Three arms, each
 * on its own namespace, each after one verification not counted (script loads, connection set-up):
 * - the engine (`createVerikit` on `createRedisStore` and `createRedisChangeBus`, test double provider) with the
 *   default send guard (its default limits: each verification has its own client and number prefix, so none is
 *   refused);
 * - the same engine with `guard: false`;
 * - the baseline: a minimal hand-written node-redis verification. Start: the per-number send limit (INCR, EXPIRE),
 *   the code's hash with its TTL (SET EX). Check: the attempt counter (INCR, EXPIRE), the stored hash (GET), then
 *   the code and its counter removed (DEL of both keys). 7 commands.
 * For the engine arms a third pass reads `INFO commandstats` at the end of each phase of a verification (until the
 * provider's send, the rest of the start, until the provider's check, the rest): the commands per phase, printed
 * under the arm (docs/performance.md lists what each one is for).
 * Counts do not depend on the machine: the short mode counts fewer verifications. The engines' timers' poll is off
 * (`timers: { pollMs: 0 }`): it costs Redis per second, not per verification, and would make the counts depend on
 * how long an arm takes.
 * `BENCH_REDIS_MONITOR=1` prints every command of the MONITOR pass (what each command is for, by its key).
 * Goal (issue 38): ≤ 14 commands per verification with the guard; the server's CPU per verification ≤ 1.5x the
 * baseline's. The server's CPU also holds its own housekeeping (10 times a second) while an arm runs, so a slower arm
 * is charged more of it; the commandstats microseconds are reported beside it and hold none.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createVerikit, type Verikit } from '@verikit/core';
import type { ProviderV1 } from '@verikit/provider';
import { createRedisChangeBus, createRedisStore, type RedisChangeBus, type RedisFlowStore } from '@verikit/redis';
import { createTestProviderV1 } from '@verikit/testing';
import { createClient } from 'redis';
import { sized } from './mode.js';
import type { SummaryRow } from './summary.js';
import { PrivateRedis } from '../packages/redis/src/redis-test-env.fixtures.js';

const verifications = sized(200, 20);
const secret = 'bench-redis-commands-secret-0123456789ab';
/** The test double's code (its default). */
const rightCode = '123456';

type Client = ReturnType<typeof createClient>;
/** Per command (lower case, as Redis names it): calls and microseconds. */
type CommandStats = Map<string, { calls: number; usec: number }>;

async function commandStats(client: Client): Promise<CommandStats> {
  const stats: CommandStats = new Map();
  for (const line of (await client.info('commandstats')).split('\n')) {
    const match = /^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/.exec(line.trim());
    if (match) stats.set(match[1]!, { calls: Number(match[2]), usec: Number(match[3]) });
  }
  return stats;
}

async function cpuSeconds(client: Client): Promise<number> {
  const info = await client.info('cpu');
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return field('used_cpu_sys') + field('used_cpu_user');
}

/**
 * Round trips against commands run by scripts, over `count` verifications after one not counted: a second pass under
 * MONITOR (which costs the server CPU, so the first pass, which the CPU figures come from, runs without it). Commands
 * a script runs are counted in commandstats too; MONITOR shows them as `[db lua]`.
 */
async function roundTrips(
  client: Client,
  verify: (index: number) => Promise<void>,
  count: number,
  first: number,
): Promise<{ fromClients: number; fromScripts: number }> {
  const monitor = client.duplicate();
  monitor.on('error', () => {});
  await monitor.connect();
  const [begin, end] = [`vk-begin-${randomUUID()}`, `vk-end-${randomUUID()}`];
  let counting = false;
  let fromClients = 0;
  let fromScripts = 0;
  let ended: () => void = () => {};
  const finished = new Promise<void>((resolve) => (ended = resolve));
  try {
    await monitor.monitor((line: string) => {
      if (line.includes(begin)) counting = true;
      else if (line.includes(end)) ended();
      else if (counting) {
        if (process.env.BENCH_REDIS_MONITOR) console.log(line);
        if (/\[\d+ lua\]/.test(line)) fromScripts += 1;
        else fromClients += 1;
      }
    });
    await verify(first);
    await client.ping(begin);
    for (let index = 1; index <= count; index += 1) await verify(first + index);
    await client.ping(end);
    await finished;
  } finally {
    monitor.destroy();
  }
  return { fromClients: fromClients / count, fromScripts: fromScripts / count };
}

/** Per phase of a verification, in order: per command, calls per verification. */
type PhaseCounts = Map<string, Map<string, number>>;

/**
 * The bench's hook in a verification: `mark(phase)` is called when a phase ends (by the provider's wrapper, before
 * its call, and after each engine call), while the phases are counted; undefined otherwise.
 */
interface PhaseHook {
  mark: ((phase: string) => Promise<void>) | undefined;
}

/** Phases of an engine verification, in order (the provider's send and check end the first and the third). */
const phaseNames = {
  beforeSms: 'start, until the SMS is sent (the guard, the new flow)',
  smsSent: 'start, after the SMS (the send committed, its receipt route)',
  submitted: 'code submitted, until the provider checks it',
  verified: "provider's answer committed (verified)",
} as const;

/**
 * `INFO commandstats` read at the end of each phase over `count` verifications after one not counted: a third pass,
 * since each read waits for Redis while the engine is between two steps (the CPU figures come from the first).
 */
async function perPhase(
  client: Client,
  hook: PhaseHook,
  verify: (index: number) => Promise<void>,
  { count, first }: { count: number; first: number },
): Promise<PhaseCounts> {
  await verify(first);
  const phases: PhaseCounts = new Map();
  let last = await commandStats(client);
  hook.mark = async (phase) => {
    const now = await commandStats(client);
    const calls = phases.get(phase) ?? new Map<string, number>();
    phases.set(phase, calls);
    for (const [name, { calls: total }] of now) {
      const delta = total - (last.get(name)?.calls ?? 0);
      if (name !== 'info' && delta > 0) calls.set(name, (calls.get(name) ?? 0) + delta / count);
    }
    last = now;
  };
  try {
    for (let index = 1; index <= count; index += 1) await verify(first + index);
  } finally {
    hook.mark = undefined;
  }
  return phases;
}

interface Counted {
  readonly label: string;
  /** Per phase (engine arms only): per command, calls per verification. */
  readonly phases?: PhaseCounts;
  /** Per command: calls per verification. */
  readonly perCommand: Map<string, number>;
  readonly commands: number;
  /** Microseconds Redis spent executing the commands (commandstats usec), per verification. */
  readonly usec: number;
  /** The server's CPU (INFO cpu, housekeeping included), microseconds per verification. */
  readonly cpu: number;
  /** Of `commands`: those sent by the client (round trips) and those run by scripts, per verification. */
  readonly fromClients: number;
  readonly fromScripts: number;
}

/** Runs `count` verifications through `verify` and counts what Redis did for them (`INFO` itself left out). */
async function count(
  label: string,
  client: Client,
  verify: (index: number) => Promise<void>,
  count: number,
  first: number,
): Promise<Counted> {
  await verify(first);
  const before = await commandStats(client);
  const cpuBefore = await cpuSeconds(client);
  for (let index = 1; index <= count; index += 1) await verify(first + index);
  const cpu = ((await cpuSeconds(client)) - cpuBefore) * 1e6;
  const after = await commandStats(client);
  const perCommand = new Map<string, number>();
  let commands = 0;
  let usec = 0;
  for (const [name, { calls, usec: spent }] of after) {
    if (name === 'info') continue;
    const delta = calls - (before.get(name)?.calls ?? 0);
    if (delta === 0) continue;
    perCommand.set(name, delta / count);
    commands += delta;
    usec += spent - (before.get(name)?.usec ?? 0);
  }
  const split = await roundTrips(client, verify, sized(20, 5), first + count + 1);
  return { label, perCommand, commands: commands / count, usec: usec / count, cpu: cpu / count, ...split };
}

/** A number of its own for verification `index`: its 7-digit national prefix (`803` and 4 more) is its own too. */
function phoneNumber(index: number): string {
  return `+234803${String(index).padStart(4, '0')}000`;
}

/**
 * The test double provider, its phone send and check marking the end of a phase first (`hook`): the send ends the
 * start's first phase, the check the submitted code's.
 */
function markingProvider(hook: PhaseHook): ProviderV1 {
  const provider = createTestProviderV1();
  const phone = provider.phone!;
  return {
    ...provider,
    phone: {
      ...phone,
      send: async (input, context) => {
        await hook.mark?.(phaseNames.beforeSms);
        return phone.send(input, context);
      },
      check: async (input, context) => {
        await hook.mark?.(phaseNames.submitted);
        return phone.check!(input, context);
      },
    },
  };
}

function engine(
  url: string,
  guard: boolean,
  hook: PhaseHook,
): { verikit: Verikit; store: RedisFlowStore; changeBus: RedisChangeBus } {
  const store = createRedisStore({
    url,
    namespace: `vk-bench-commands-${guard ? 'guard' : 'bare'}-${randomUUID().slice(0, 8)}`,
  });
  const changeBus = createRedisChangeBus({ store });
  const verikit = createVerikit({
    provider: markingProvider(hook),
    store,
    changeBus,
    secret,
    // The timers' poll (one ZRANGEBYSCORE a second per instance) is work per second, not per verification.
    timers: { pollMs: 0 },
    ...(guard ? {} : { guard: false as const }),
  });
  return { verikit, store, changeBus };
}

async function engineVerification(verikit: Verikit, hook: PhaseHook, index: number): Promise<void> {
  const started = await verikit.start(
    { kind: 'phone', phoneNumber: phoneNumber(index) },
    { client: `client-${index}` },
  );
  await hook.mark?.(phaseNames.smsSent);
  const view = await verikit.send(started.id, { type: 'submit-code', code: rightCode });
  await hook.mark?.(phaseNames.verified);
  if (view.status !== 'verified') throw new Error(`verification ${index} ended in ${view.status}, not verified`);
}

/** One engine arm: an engine of its own, alone on the server while it is counted, closed after. */
async function countEngine(
  label: string,
  client: Client,
  url: string,
  guard: boolean,
  first: number,
): Promise<Counted> {
  const hook: PhaseHook = { mark: undefined };
  const { verikit, store, changeBus } = engine(url, guard, hook);
  const verify = (index: number) => engineVerification(verikit, hook, index);
  try {
    const counted = await count(label, client, verify, verifications, first);
    const phases = await perPhase(client, hook, verify, {
      count: sized(20, 5),
      first: first + verifications + sized(20, 5) + 2,
    });
    return { ...counted, phases };
  } finally {
    await verikit.close();
    await changeBus.close();
    await store.close();
  }
}

/** The hand-written verification (see the file comment). */
function handWritten(client: Client): (index: number) => Promise<void> {
  const hash = (code: string) => createHash('sha256').update(`${secret}:${code}`).digest('hex');
  return async (index) => {
    const number = phoneNumber(index);
    const sends = await client.incr(`hand:sends:${number}`);
    if (sends === 1) await client.expire(`hand:sends:${number}`, 3600);
    if (sends > 10) throw new Error('limited');
    await client.set(`hand:code:${number}`, hash(rightCode), { EX: 600 });
    // The check.
    const attempts = await client.incr(`hand:attempts:${number}`);
    if (attempts === 1) await client.expire(`hand:attempts:${number}`, 600);
    if (attempts > 5) throw new Error('too many attempts');
    const stored = await client.get(`hand:code:${number}`);
    if (stored !== hash(rightCode)) throw new Error('wrong code');
    await client.del([`hand:code:${number}`, `hand:attempts:${number}`]);
  };
}

/** `SET 8, EVALSHA 4, …`: the commands of `calls`, most called first. */
function commandList(calls: Map<string, number>): string {
  return [...calls]
    .sort(([, a], [, b]) => b - a)
    .map(([name, n]) => `${name.toUpperCase()} ${Number(n.toFixed(2))}`)
    .join(', ');
}

function print(arm: Counted, baseline: Counted): void {
  const breakdown = commandList(arm.perCommand);
  console.log(
    `${arm.label}: ${arm.commands.toFixed(2)} commands per verification (${breakdown}), of which ${Number(arm.fromClients.toFixed(2))} sent by the client and ${Number(arm.fromScripts.toFixed(2))} run by scripts; Redis ${arm.usec.toFixed(1)} µs in commands (${(arm.usec / baseline.usec).toFixed(2)}x the baseline), ${arm.cpu.toFixed(0)} µs of the server's CPU (${(arm.cpu / baseline.cpu).toFixed(2)}x)`,
  );
  for (const [phase, calls] of arm.phases ?? []) {
    const total = [...calls.values()].reduce((sum, n) => sum + n, 0);
    console.log(`  ${phase}: ${Number(total.toFixed(2))} (${commandList(calls)})`);
  }
}

export async function run(): Promise<SummaryRow[]> {
  const measure = 'Redis commands per verification, guard on';
  let redis: PrivateRedis;
  try {
    redis = await PrivateRedis.start();
  } catch (error) {
    console.log(`skipped: no private redis-server (${error instanceof Error ? error.message : String(error)})`);
    return [{ measure, value: 'no redis-server', baseline: '—', ratio: undefined, goal: '≤ 14', met: undefined }];
  }
  const client = createClient({ url: redis.url });
  client.on('error', () => {});
  try {
    await client.connect();
    console.log(
      `private redis-server at ${redis.url}; ${verifications} verifications per arm (start, then the right code)`,
    );
    const baseline = await count('hand-written node-redis', client, handWritten(client), verifications, 5000);
    const guarded = await countEngine('engine, default send guard', client, redis.url, true, 0);
    const bare = await countEngine('engine, guard: false', client, redis.url, false, 1000);
    for (const arm of [baseline, guarded, bare]) print(arm, baseline);
    const commands = (arm: Counted) => `${Number(arm.commands.toFixed(2))} commands`;
    return [
      {
        measure,
        value: commands(guarded),
        baseline: `${commands(baseline)} (hand-written)`,
        ratio: guarded.commands,
        goal: '≤ 14',
        met: guarded.commands <= 14,
      },
      {
        measure: 'Redis commands per verification, guard off',
        value: commands(bare),
        baseline: `${commands(baseline)} (hand-written)`,
        ratio: bare.commands,
        goal: 'report',
        met: undefined,
      },
      {
        measure: 'Redis round trips per verification, guard on',
        value: `${Number(guarded.fromClients.toFixed(2))} commands sent`,
        baseline: `${Number(baseline.fromClients.toFixed(2))} commands sent (hand-written)`,
        ratio: guarded.fromClients / baseline.fromClients,
        goal: 'report',
        met: undefined,
      },
      {
        measure: 'Redis server CPU per verification, guard on',
        value: `${guarded.cpu.toFixed(0)} µs`,
        baseline: `${baseline.cpu.toFixed(0)} µs (hand-written)`,
        ratio: guarded.cpu / baseline.cpu,
        goal: '≤ 1.5',
        met: guarded.cpu / baseline.cpu <= 1.5,
      },
      {
        measure: 'Redis CPU in commands per verification, guard on',
        value: `${guarded.usec.toFixed(1)} µs`,
        baseline: `${baseline.usec.toFixed(1)} µs (hand-written)`,
        ratio: guarded.usec / baseline.usec,
        goal: 'report',
        met: undefined,
      },
    ];
  } finally {
    client.destroy();
    await redis.dispose();
  }
}
