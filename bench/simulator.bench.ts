/**
 * `pnpm bench simulator`: the carrier simulator's speed (packages/simulator, docs/simulator.md) beside the engine's
 * bare start+check loop measured in the same run.
 *
 * (a) Baseline: phone flows started and verified one after the other through the engine with the test double
 *     (`@verikit/testing`): `start`, read the code, `submit-code`. The least a simulated flow can cost.
 * (b) The simulator in fast mode on the shipped `baseline` scenario: real people (reading, typos, resends) on the
 *     engine, Termii's provider package answering through its fake's handler in process, the carrier layer between.
 *     Flows per second of this process's CPU time, and the ratio to (a): what the realism costs.
 * (c) Issue 31's goal: a 50,000-flow run of the same scenario, wall time and CPU time (goal: under 2 minutes).
 *
 * Rates are per second of this process's CPU time (process.cpuUsage), so a neighbour taking the core does not count
 * against either arm; the 50,000-flow row gives wall time as well, since the goal is about wall time.
 */
import { createVerikit } from '@verikit/core';
import { loadScenario, runSimulation, shippedScenarioUrl } from '@verikit/simulator';
import { createTestProviderV1, ManualClock } from '@verikit/testing';
import { perCpuSecond } from './engine.bench.js';
import { sized } from './mode.js';
import { median, type SummaryRow } from './summary.js';

const rounds = sized(3, 1);
const engineFlows = sized(5_000, 500);
const simulatedFlows = sized(5_000, 300);
const bigRun = sized(50_000, 1_000);

/** Starts and verifies `count` phone flows through the engine and the test double; returns the count. */
async function engineLoop(count: number, offset: number): Promise<number> {
  const provider = createTestProviderV1();
  const verikit = createVerikit({
    provider,
    secret: 'bench-secret-bench-secret-bench-secret',
    clock: new ManualClock(),
    guard: false,
  });
  for (let index = 0; index < count; index += 1) {
    const phoneNumber = `+234803${String((offset + index) % 10_000_000).padStart(7, '0')}`;
    const view = await verikit.start({ kind: 'phone', phoneNumber });
    const verified = await verikit.send(view.id, { type: 'submit-code', code: provider.lastCode(phoneNumber)! });
    if (verified.status !== 'verified') throw new Error(`expected verified, got ${verified.status}`);
  }
  return count;
}

export async function run(): Promise<SummaryRow[]> {
  const scenario = await loadScenario(shippedScenarioUrl('baseline'));
  const engineRates: number[] = [];
  const simulatorRates: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    engineRates.push(await perCpuSecond(() => engineLoop(engineFlows, round * engineFlows)));
    simulatorRates.push(
      await perCpuSecond(async () => (await runSimulation(scenario, { flows: simulatedFlows, seed: round + 1 })).flows),
    );
  }
  const engine = median(engineRates);
  const simulator = median(simulatorRates);
  console.log(`engine start+check (test double):  ${engine.toFixed(0)} flows/s of CPU`);
  console.log(
    `simulator, baseline scenario, fast: ${simulator.toFixed(0)} flows/s of CPU (${(simulator / engine).toFixed(2)}x)`,
  );

  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const big = await runSimulation(scenario, { flows: bigRun });
  const wall = (performance.now() - wallBefore) / 1000;
  const cpuUsed = process.cpuUsage(cpuBefore);
  const cpu = (cpuUsed.user + cpuUsed.system) / 1e6;
  console.log(
    `simulator, ${big.flows} flows: ${wall.toFixed(1)} s wall, ${cpu.toFixed(1)} s CPU (${((big.verified / big.people) * 100).toFixed(1)}% verified)`,
  );
  return [
    {
      measure: 'Simulator fast mode flows/s (CPU) vs engine start+check',
      value: `${simulator.toFixed(0)} flows/s`,
      baseline: `${engine.toFixed(0)} flows/s`,
      ratio: simulator / engine,
      goal: 'report',
      met: undefined,
    },
    {
      measure: `Simulator ${big.flows.toLocaleString('en')}-flow run, wall time`,
      value: `${wall.toFixed(1)} s`,
      baseline: `${cpu.toFixed(1)} s CPU`,
      ratio: wall,
      goal: '≤ 120 s',
      met: wall <= 120,
    },
  ];
}
