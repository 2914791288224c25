/**
 * `pnpm bench redis-commands`: the Redis commands and the Redis CPU one whole phone verification costs, counted by
 * Redis itself (issue 38). A verification is a start (to a number and a client of its own), then the right code.
 *
 * The bench starts a private `redis-server` on a free port, so that nothing else on this machine is counted, and
 * reads `INFO commandstats` before and after each arm: the calls per command. Three arms, each on its own namespace,
 * each after one verification not counted (script loads, connection set-up):
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
 * Then the Redis CPU, in rounds apart from the counting (`cpuRounds`): each round runs the three arms in turn, each
 * with a new engine, first at 1 verification in flight, then at 32; per arm and round the server's CPU (`INFO cpu`:
 * its idle housekeeping while the arm runs included) and the commands' microseconds (`commandstats` usec, none of the
 * I/O), per command too. The ratio is the median of the rounds' ratios, printed with the lowest and the highest.
 * Goal (issue 38): ≤ 14 commands per verification with the guard; the server's CPU per verification ≤ 1.5x the
 * baseline's. At 1 in flight the server idles between two commands while the client works, and a command after an
 * idle spell costs it more (cold caches): an arm whose client is slower is charged more per command. At 32 in flight
 * the server is seldom idle and node-redis sends the commands of concurrent calls in one write, so it is charged
 * what the commands cost.
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
/** The CPU rounds: each arm `perRound` verifications a round at 1 in flight, twice as many at 32 in flight. */
const cpuSizes = { rounds: sized(5, 2), perRound: sized(450, 30) };
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
  for (let index = 1; index <= count; index += 1) await verify(first + index);
  const after = await commandStats(client);
  const perCommand = new Map<string, number>();
  let commands = 0;
  for (const [name, { calls }] of after) {
    if (name === 'info') continue;
    const delta = calls - (before.get(name)?.calls ?? 0);
    if (delta === 0) continue;
    perCommand.set(name, delta / count);
    commands += delta;
  }
  const split = await roundTrips(client, verify, sized(20, 5), first + count + 1);
  return { label, perCommand, commands: commands / count, ...split };
}

/**
 * A number of its own for verification `index`: its 7-digit national prefix (`803` and 4 more) is its own too among
 * any 10,000 indexes in a row (each CPU round's engine has a namespace, so its guard's counts, of its own).
 */
function phoneNumber(index: number): string {
  return `+234803${String(index % 10_000).padStart(4, '0')}${String(Math.floor(index / 10_000) % 1000).padStart(3, '0')}`;
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

/** One arm's share of one CPU round: per verification, the server's CPU and the commands' microseconds. */
interface CpuSample {
  readonly cpu: number;
  readonly usec: number;
}

/** The CPU rounds of one arm: a sample per round, and per command its calls and microseconds over every round. */
interface CpuArm {
  readonly samples: CpuSample[];
  readonly perCommand: CommandStats;
  verifications: number;
}

type ArmName = 'hand' | 'guard' | 'bare';
const armNames: readonly ArmName[] = ['hand', 'guard', 'bare'];

/**
 * The Redis CPU figures: `rounds` rounds, each running every arm in turn (the first arm moving by one each round, so
 * that the load's swings fall on every arm alike), each arm `perRound` verifications with `inFlight` at a time after a
 * few not counted. An engine arm gets a new engine (and namespace) each round, so the default guard's global 1,000
 * sends an hour are never reached. Nothing else runs on the private server meanwhile: its CPU (`INFO cpu`) and the
 * commands' microseconds (`INFO commandstats`) are read before and after each arm.
 */
async function cpuRounds(
  client: Client,
  url: string,
  { rounds, perRound, inFlight, first }: { rounds: number; perRound: number; inFlight: number; first: number },
): Promise<Record<ArmName, CpuArm>> {
  const arms = {} as Record<ArmName, CpuArm>;
  for (const name of armNames) arms[name] = { samples: [], perCommand: new Map(), verifications: 0 };
  let next = first;
  const hand = handWritten(client);
  for (let round = 0; round < rounds; round += 1) {
    const order = [...armNames.slice(round % 3), ...armNames.slice(0, round % 3)];
    for (const name of order) {
      const hook: PhaseHook = { mark: undefined };
      const made = name === 'hand' ? undefined : engine(url, name === 'guard', hook);
      const verify = made ? (index: number) => engineVerification(made.verikit, hook, index) : hand;
      try {
        for (let warm = 0; warm < 5; warm += 1) await verify(next++);
        const before = await commandStats(client);
        const cpuBefore = await cpuSeconds(client);
        let left = perRound;
        await Promise.all(
          Array.from({ length: inFlight }, async () => {
            while (left > 0) {
              left -= 1;
              await verify(next++);
            }
          }),
        );
        const cpu = ((await cpuSeconds(client)) - cpuBefore) * 1e6;
        const after = await commandStats(client);
        const arm = arms[name];
        let usec = 0;
        for (const [command, { calls, usec: spent }] of after) {
          if (command === 'info') continue;
          const delta = {
            calls: calls - (before.get(command)?.calls ?? 0),
            usec: spent - (before.get(command)?.usec ?? 0),
          };
          if (delta.calls === 0) continue;
          usec += delta.usec;
          const total = arm.perCommand.get(command) ?? { calls: 0, usec: 0 };
          arm.perCommand.set(command, { calls: total.calls + delta.calls, usec: total.usec + delta.usec });
        }
        arm.samples.push({ cpu: cpu / perRound, usec: usec / perRound });
        arm.verifications += perRound;
      } finally {
        if (made) {
          await made.verikit.close();
          await made.changeBus.close();
          await made.store.close();
        }
      }
    }
  }
  return arms;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** Per round, an engine arm's server CPU over the hand-written arm's in the same round: median, lowest, highest. */
function cpuRatios(arms: Record<ArmName, CpuArm>, name: ArmName): { median: number; low: number; high: number } {
  const ratios = arms[name].samples.map((sample, round) => sample.cpu / arms.hand.samples[round]!.cpu);
  return { median: median(ratios), low: Math.min(...ratios), high: Math.max(...ratios) };
}

function printCpu(label: string, arms: Record<ArmName, CpuArm>): void {
  const labels: Record<ArmName, string> = {
    hand: 'hand-written node-redis',
    guard: 'engine, default send guard',
    bare: 'engine, guard: false',
  };
  console.log(`Redis CPU per verification, ${label} (${arms.hand.samples.length} rounds, arms in turn):`);
  for (const name of armNames) {
    const arm = arms[name];
    const cpu = arm.samples.map((sample) => sample.cpu);
    const ratio =
      name === 'hand'
        ? ''
        : (({ median: middle, low, high }) =>
            `, ${middle.toFixed(2)}x the hand-written (rounds ${low.toFixed(2)}–${high.toFixed(2)})`)(
            cpuRatios(arms, name),
          );
    console.log(
      `  ${labels[name]}: server ${median(cpu).toFixed(0)} µs (rounds ${cpu.map((value) => value.toFixed(0)).join(', ')})${ratio}; in commands ${median(arm.samples.map((sample) => sample.usec)).toFixed(1)} µs`,
    );
    for (const [command, { calls, usec }] of [...arm.perCommand].sort(([, a], [, b]) => b.usec - a.usec)) {
      console.log(
        `    ${command.toUpperCase()}: ${Number((calls / arm.verifications).toFixed(2))} per verification, ${(usec / calls).toFixed(2)} µs a call, ${(usec / arm.verifications).toFixed(1)} µs per verification`,
      );
    }
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

function print(arm: Counted): void {
  const breakdown = commandList(arm.perCommand);
  console.log(
    `${arm.label}: ${arm.commands.toFixed(2)} commands per verification (${breakdown}), of which ${Number(arm.fromClients.toFixed(2))} sent by the client and ${Number(arm.fromScripts.toFixed(2))} run by scripts`,
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
    for (const arm of [baseline, guarded, bare]) print(arm);
    const sequential = await cpuRounds(client, redis.url, { ...cpuSizes, inFlight: 1, first: 20_000 });
    printCpu('1 in flight', sequential);
    const concurrent = await cpuRounds(client, redis.url, {
      ...cpuSizes,
      perRound: cpuSizes.perRound * 2,
      inFlight: 32,
      first: 200_000,
    });
    printCpu('32 in flight', concurrent);
    const cpuRow = (arms: Record<ArmName, CpuArm>, inFlight: number): SummaryRow => {
      const ratio = cpuRatios(arms, 'guard');
      return {
        measure: `Redis server CPU per verification, guard on, ${inFlight} in flight`,
        value: `${median(arms.guard.samples.map((sample) => sample.cpu)).toFixed(0)} µs (rounds ${ratio.low.toFixed(2)}–${ratio.high.toFixed(2)}x)`,
        baseline: `${median(arms.hand.samples.map((sample) => sample.cpu)).toFixed(0)} µs (hand-written)`,
        ratio: ratio.median,
        goal: '≤ 1.5',
        met: ratio.median <= 1.5,
      };
    };
    const inCommands = (arm: CpuArm) => median(arm.samples.map((sample) => sample.usec));
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
      cpuRow(sequential, 1),
      cpuRow(concurrent, 32),
      {
        measure: 'Redis CPU in commands per verification, guard on',
        value: `${inCommands(sequential.guard).toFixed(1)} µs`,
        baseline: `${inCommands(sequential.hand).toFixed(1)} µs (hand-written)`,
        ratio: inCommands(sequential.guard) / inCommands(sequential.hand),
        goal: 'report',
        met: undefined,
      },
    ];
  } finally {
    client.destroy();
    await redis.dispose();
  }
}
