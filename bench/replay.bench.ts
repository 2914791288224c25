/**
 * `pnpm bench replay`: the speed of `verikit replay` (packages/simulator/src/replay, docs/abuse.md) on the shipped
 * `pumping-million` traffic, beside the engine's own start measured in the same run.
 *
 * (a) Baseline: phone starts through the engine with the test double (`@verikit/testing`) and a send guard with the
 *     traffic's rate card, a budget and the tripwire (its counts out of reach, so nothing is refused), each start to
 *     a number and a client of its own: what a start costs when the whole engine runs it.
 * (b) The replay of `pumping-million` cut to `starts` (seed = round): people and bots, the guard's counts, budget,
 *     tripwire and ledger on the virtual clock. Starts per second of this process's CPU time, and the ratio to (a).
 *
 * Issue 38's goal: the replay at 20,000 starts per CPU-second or more. Rates are per second of this process's CPU
 * time (process.cpuUsage), so a neighbour taking the core does not count against either arm.
 */
import { createVerikit, type SendGuardOptions } from '@verikit/core';
import { loadTraffic, runReplay, shippedTrafficUrl } from '@verikit/simulator';
import { createTestProviderV1, ManualClock } from '@verikit/testing';
import { perCpuSecond } from './engine.bench.js';
import { sized } from './mode.js';
import { median, type SummaryRow } from './summary.js';

const rounds = sized(3, 1);
const engineStarts = sized(5_000, 500);
const replayStarts = sized(100_000, 10_000);
/** Issue 38's goal for the replay, in starts per CPU-second. */
const goal = 20_000;

/** Starts `count` phone flows through the engine with a guard that refuses nothing; returns the count. */
async function engineStartLoop(count: number, offset: number, price: { currency: string; sms: number }) {
  const guard: SendGuardOptions = {
    perClient: { points: 1e9 },
    perPrefix: { points: 1e9 },
    global: { points: 1e9 },
    prices: { currency: price.currency, prices: [{ channel: 'sms', price: price.sms }] },
    budget: { perHour: 1e9, perDay: 1e9 },
    tripwire: {},
  };
  const verikit = createVerikit({
    provider: createTestProviderV1(),
    secret: 'bench-secret-bench-secret-bench-secret',
    clock: new ManualClock(),
    guard,
  });
  for (let index = 0; index < count; index += 1) {
    const serial = offset + index;
    const phoneNumber = `+234803${String(serial % 10_000_000).padStart(7, '0')}`;
    const view = await verikit.start({ kind: 'phone', phoneNumber }, { client: `client-${serial}` });
    if (view.status !== 'awaiting-code') throw new Error(`expected awaiting-code, got ${view.status}`);
  }
  return count;
}

export async function run(): Promise<SummaryRow[]> {
  const traffic = await loadTraffic(shippedTrafficUrl('pumping-million'));
  const scenario = { ...traffic, starts: replayStarts };
  const engineRates: number[] = [];
  const replayRates: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    engineRates.push(await perCpuSecond(() => engineStartLoop(engineStarts, round * engineStarts, traffic.price)));
    replayRates.push(await perCpuSecond(async () => (await runReplay(scenario, { seed: round + 1 })).starts));
  }
  const engine = median(engineRates);
  const replay = median(replayRates);
  console.log(`engine start (test double, guard refusing nothing): ${engine.toFixed(0)} starts/s of CPU`);
  console.log(
    `replay, ${traffic.name} cut to ${replayStarts} starts: ${replay.toFixed(0)} starts/s of CPU (${(replay / engine).toFixed(2)}x; rounds: ${replayRates.map((rate) => rate.toFixed(0)).join(', ')})`,
  );
  return [
    {
      measure: `Replay starts/s (CPU), ${traffic.name} cut to ${replayStarts.toLocaleString('en')}`,
      value: `${replay.toFixed(0)} starts/s`,
      baseline: `${engine.toFixed(0)} engine starts/s`,
      ratio: replay / engine,
      goal: `≥ ${goal.toLocaleString('en')} starts/s`,
      met: replay >= goal,
    },
  ];
}
