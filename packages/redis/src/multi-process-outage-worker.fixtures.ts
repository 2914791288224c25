/**
 * One app instance of the multi-process outage test, run as its own Node process:
 * `node --import tsx --conditions=@verikit/source multi-process-outage-worker.fixtures.ts <index>`.
 *
 * Messages from the parent, in order: the plan, "go", "down" (Redis has been stopped), "resume"
 * (Redis is back). It answers `{ ready }`, `{ progressed }` once its load has made progress,
 * `{ outage }` with what it saw up to and during the outage, and `{ report }` once every flow is done.
 */
import { ConflictError, createVerikit, EventNotAllowedError } from '@verikit/core';
import { ManualClock } from '@verikit/testing';
import { createRedisChangeBus } from './redis-change-bus.js';
import { createRedisStore } from './create-redis-store.js';
import {
  outagePolicies,
  parentMessages,
  recordingStore,
  rightCode,
  scenarioSecret,
  sharedServiceProvider,
  timed,
  wrongCode,
  type CommitRecord,
  type OutagePlan,
  type OutageReport,
  type TimedCall,
} from './multi-process.fixtures.js';

const worker = Number(process.argv[2] ?? '0');
const send = (message: unknown) => process.send!(message);
const nextMessage = parentMessages();
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Accepted wrong codes and resends per flow before the outage, so no flow runs out of attempts or sends. */
const maxWrongCodes = 10;
const maxResends = 5;

// Booted before its test starts (booting tsx on the source is most of a worker's cost), then handed the plan.
send({ booted: worker });
const plan = (await nextMessage()) as OutagePlan;
const commits: CommitRecord[] = [];
const failures: Array<{ flowId: string; version: number }> = [];
const calls: TimedCall[] = [];
const unexpected: string[] = [];
const inFlight = new Set<{ readonly call: Pick<TimedCall, 'flowId' | 'action' | 'phase'>; readonly started: number }>();
/** {@link timed}, keeping the call in {@link inFlight} until it settles. */
async function track<T>(
  call: Pick<TimedCall, 'flowId' | 'action' | 'phase'>,
  run: () => Promise<T>,
): ReturnType<typeof timed<T>> {
  const entry = { call, started: performance.now() };
  inFlight.add(entry);
  try {
    return await timed(calls, unexpected, call, run);
  } finally {
    inFlight.delete(entry);
  }
}
const { provider } = sharedServiceProvider(`o${worker}`);
const clock = new ManualClock(plan.clockStart);
const redisStore = createRedisStore({ url: plan.url, namespace: plan.namespace });
await redisStore.connect();
const changeBus = createRedisChangeBus({ store: redisStore });
const verikit = createVerikit({
  provider,
  store: recordingStore(redisStore, commits, failures),
  changeBus,
  secret: scenarioSecret,
  clock,
  policies: outagePolicies,
  guard: false,
});

send({ ready: worker });
await nextMessage(); // go

// Load: on every flow, one loop sending wrong codes and one resending, each reading the flow too,
// until the parent says Redis is down.
let stopped = false;
let progressed = false;
const downMessage = nextMessage();
const progress = () => {
  if (!progressed && calls.filter((call) => call.outcome === 'ok').length >= 20) {
    progressed = true;
    send({ progressed: worker });
  }
};
async function loop(flowId: string, action: 'submit-wrong' | 'resend'): Promise<void> {
  const limit = action === 'resend' ? maxResends : maxWrongCodes;
  let accepted = 0;
  while (!stopped) {
    await track({ flowId, action: 'get', phase: 'load' }, () => verikit.get(flowId));
    if (stopped) break;
    if (accepted < limit) {
      const event =
        action === 'resend' ? ({ type: 'resend' } as const) : ({ type: 'submit-code', code: wrongCode } as const);
      const result = await track({ flowId, action, phase: 'load' }, () => verikit.send(flowId, event));
      if (result.ok) accepted += 1;
    }
    progress();
    await pause(1 + Math.random() * 2);
  }
}
const load = plan.flows.flatMap((flowId) => [loop(flowId, 'submit-wrong'), loop(flowId, 'resend')]);
await downMessage;
stopped = true;

// Redis is down: every kind of call, on every flow at once, fails with a StoreError (while the
// load's calls in flight settle). Reported after 3 s at most, with the calls still waiting then.
const settled = Promise.all([
  ...load,
  ...plan.flows.flatMap((flowId) => [
    track({ flowId, action: 'get', phase: 'down' }, () => verikit.get(flowId)),
    track({ flowId, action: 'submit-wrong', phase: 'down' }, () =>
      verikit.send(flowId, { type: 'submit-code', code: wrongCode }),
    ),
    track({ flowId, action: 'submit-right', phase: 'down' }, () =>
      verikit.send(flowId, { type: 'submit-code', code: rightCode }),
    ),
    track({ flowId, action: 'resend', phase: 'down' }, () => verikit.send(flowId, { type: 'resend' })),
  ]),
  track({ flowId: '', action: 'start', phase: 'down' }, () =>
    verikit.start({
      kind: 'phone',
      phoneNumber: `+234809${String(worker).padStart(2, '0')}${String(Date.now() % 100_000).padStart(5, '0')}`,
    }),
  ),
]);
let reportTimer: NodeJS.Timeout | undefined;
await Promise.race([settled, new Promise((resolve) => (reportTimer = setTimeout(resolve, 3000)))]);
clearTimeout(reportTimer);
const now = performance.now();
const hanging = [...inFlight].map(({ call, started }) => ({ ...call, ms: now - started }));
const outage: OutageReport = {
  worker,
  commits: [...commits],
  failures: [...failures],
  calls: [...calls],
  unexpected: [...unexpected],
  hanging,
};
send({ outage });
await settled;

await nextMessage(); // resume
// Redis is back: wait for this instance's reconnection (it retries with a backoff of up to 1 s).
for (let attempt = 0; attempt < 400; attempt += 1) {
  const ready = await redisStore.getFlow(plan.flows[0]!).then(
    () => true,
    () => false,
  );
  if (ready) break;
  await pause(25);
}
// A provider call cut off by the outage is past its deadline once the clock moves on: the flow then
// shows the outcome as unknown and takes the next step.
clock.advance((outagePolicies.effectTimeoutMs ?? 15_000) + 20_000);

const finalStatus: Record<string, string> = {};
/** Refusals that only mean another instance moved the flow meanwhile (it is checking a code, say). */
const racing = (error: unknown) => EventNotAllowedError.isInstance(error) || ConflictError.isInstance(error);
/** The right code until the flow is verified; a resend first when the flow waits for one. */
async function complete(flowId: string): Promise<void> {
  for (let step = 0; step < 200; step += 1) {
    const read = await track({ flowId, action: 'get', phase: 'after' }, () => verikit.get(flowId));
    if (!read.ok) break;
    if (read.value.done) break;
    let result: Awaited<ReturnType<typeof timed>> | undefined;
    if (read.value.allowed.includes('submit-code')) {
      result = await track({ flowId, action: 'submit-right', phase: 'after' }, () =>
        verikit.send(flowId, { type: 'submit-code', code: rightCode }),
      );
    } else if (read.value.allowed.includes('resend')) {
      result = await track({ flowId, action: 'resend', phase: 'after' }, () =>
        verikit.send(flowId, { type: 'resend' }),
      );
    }
    if (result && !result.ok && !racing(result.error)) break;
    await pause(2);
  }
  finalStatus[flowId] = (await verikit.get(flowId).catch(() => undefined))?.status ?? 'unreadable';
}
await Promise.all(plan.flows.map((flowId) => complete(flowId)));

const report: OutageReport = { worker, commits, failures, calls, unexpected, finalStatus };
send({ report });
await changeBus.close();
await redisStore.close();
process.disconnect();
