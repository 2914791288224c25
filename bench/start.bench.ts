/**
 * `pnpm bench start`: the CPU one phone start costs in memory, against a start written by hand in the same process.
 *
 * - `verikit`: `verikit.start({ kind: 'phone', phoneNumber })` on the embedded memory store with the test double
 *   (no latency), the send guard off (its cost is `pnpm bench guard`'s row): parse and check the number, the machine's
 *   first transition, the record and route written, the send through the provider, its answer committed, the view.
 * - `by hand` (the baseline): what a minimal server does for the same start: a `+` and digits check, the test double's
 *   `phone.send` (the same provider call), an HMAC of the flow id as its secret, a per-number count and a JSON record
 *   with an expiry in `Map`s.
 *
 * Each round runs a batch of distinct numbers through each arm in turn (the order alternating), timed by
 * `process.cpuUsage()`; the figure is the median over rounds of verikit's CPU µs per start, the ratio verikit / by hand.
 * Issue 38's goal is an absolute 60 µs on its host; the ratio is what compares across hosts.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { createVerikit, silentLogger } from '@verikit/core';
import { createTestProviderV1, ManualClock } from '@verikit/testing';
import { sized } from './mode.js';
import { median, type SummaryRow } from './summary.js';

const secret = 'start-bench-secret-0123456789-abcdefgh';
const rounds = sized(9, 3);
const perRound = sized(5_000, 500);
const goalMicros = 60;

const phoneNumber = (index: number) => `+234803${String(index % 10_000_000).padStart(7, '0')}`;

function cpuMicros(): number {
  const used = process.cpuUsage();
  return used.user + used.system;
}

/** The engine's arm: a fresh engine per run of the bench, numbers never repeated. */
function verikitArm() {
  const provider = createTestProviderV1();
  const verikit = createVerikit({ provider, secret, clock: new ManualClock(), guard: false, logger: silentLogger });
  return {
    async start(index: number) {
      const view = await verikit.start({ kind: 'phone', phoneNumber: phoneNumber(index) });
      if (view.status !== 'awaiting-code') throw new Error(`expected awaiting-code, got ${view.status}`);
    },
    reset: () => provider.reset(),
  };
}

/** The baseline's arm: the same provider call and the bookkeeping a hand-written server keeps. */
function byHandArm() {
  const provider = createTestProviderV1();
  const records = new Map<string, string>();
  const sendsPerNumber = new Map<string, number>();
  const context = { signal: new AbortController().signal, idempotencyKey: '', logger: silentLogger };
  return {
    async start(index: number) {
      const number = phoneNumber(index);
      if (!/^\+[1-9]\d{7,14}$/.test(number)) throw new Error('not a number');
      const sent = (sendsPerNumber.get(number) ?? 0) + 1;
      if (sent > 5) throw new Error('too many sends');
      sendsPerNumber.set(number, sent);
      const id = randomUUID();
      const answer = await provider.phone!.send(
        { phoneNumber: number, channel: 'sms' },
        { ...context, idempotencyKey: `${id}:send:1` },
      );
      const flowSecret = createHmac('sha256', secret).update(id).digest('base64url');
      records.set(
        id,
        JSON.stringify({
          id,
          number,
          requestId: answer.requestId,
          attempts: 0,
          expires: Date.now() + 600_000,
          salt: randomBytes(8).toString('hex'),
        }),
      );
      if (flowSecret.length === 0) throw new Error('no secret');
    },
    reset: () => provider.reset(),
  };
}

type Arm = ReturnType<typeof verikitArm>;

async function batch(arm: Arm, offset: number): Promise<number> {
  const before = cpuMicros();
  for (let index = 0; index < perRound; index += 1) {
    await arm.start(offset + index);
    if (index % 1000 === 999) arm.reset();
  }
  return (cpuMicros() - before) / perRound;
}

export async function run(): Promise<SummaryRow[]> {
  const verikit = verikitArm();
  const byHand = byHandArm();
  // Warm both: code paths compiled, caches and the number library's metadata loaded.
  await batch(verikit, 9_000_000);
  await batch(byHand, 9_000_000);
  const engine: number[] = [];
  const bare: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const offset = (round + 1) * perRound;
    const first = round % 2 === 0 ? verikit : byHand;
    const firstMicros = await batch(first, offset);
    const secondMicros = await batch(first === verikit ? byHand : verikit, offset);
    const [engineMicros, bareMicros] = first === verikit ? [firstMicros, secondMicros] : [secondMicros, firstMicros];
    engine.push(engineMicros);
    bare.push(bareMicros);
    ratios.push(engineMicros / bareMicros);
    console.log(
      `round ${round + 1}: verikit ${engineMicros.toFixed(1)} µs, by hand ${bareMicros.toFixed(1)} µs per start`,
    );
  }
  const figure = median(engine);
  console.log(
    `CPU per phone start in memory: verikit ${figure.toFixed(1)} µs (median), by hand ${median(bare).toFixed(1)} µs, ` +
      `ratio ${median(ratios).toFixed(2)}`,
  );
  return [
    {
      measure: 'CPU per phone start, in memory, guard off',
      value: `${figure.toFixed(1)} µs`,
      baseline: `${median(bare).toFixed(1)} µs by hand`,
      ratio: median(ratios),
      goal: `≤ ${goalMicros} µs (issue 38)`,
      met: figure <= goalMicros,
    },
  ];
}
