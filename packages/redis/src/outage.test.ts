import { randomUUID } from 'node:crypto';
import { createClient } from '@keyv/redis';
import { createVerikit, FlowNotFoundError, StoreError, VerikitError, type FlowView, type Verikit } from '@verikit/core';
import { ManualClock } from '@verikit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareAndSetScript } from './lua-script.js';
import { createRedisChangeBus, type RedisChangeBus } from './redis-change-bus.js';
import { createRedisStore } from './create-redis-store.js';
import type { RedisFlowStore } from './redis-flow-store.js';
import {
  outagePolicies,
  recordingStore,
  rightCode,
  scenarioPolicies,
  scenarioSecret,
  sharedServiceProvider,
  WorkerProcess,
  wrongCode,
  type CommitRecord,
  type OutagePlan,
  type OutageReport,
} from './multi-process.fixtures.js';
import { freePort, PrivateRedis, redisServerSkipReason } from './redis-test-env.fixtures.js';

const serverMissing = await redisServerSkipReason('@verikit/redis outage');

let numberSeed = Math.floor(Math.random() * 40_000_000);
function freshPhoneNumber(): string {
  numberSeed += 1;
  return `+234809${String(numberSeed % 10_000_000).padStart(7, '0')}`;
}

/** Asserts the call fails with a retryable StoreError, never FlowNotFoundError. */
async function expectStoreError(call: Promise<unknown>): Promise<StoreError> {
  const error = await call.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(FlowNotFoundError.isInstance(error)).toBe(false);
  expect(StoreError.isInstance(error), String(error)).toBe(true);
  expect((error as StoreError).isRetryable).toBe(true);
  return error as StoreError;
}

const policies = { ...scenarioPolicies, maxAttempts: 100 };

describe.skipIf(serverMissing !== undefined)('Redis outage (a private redis-server, stopped and restarted)', () => {
  let redis: PrivateRedis;
  const stores: RedisFlowStore[] = [];
  const buses: RedisChangeBus[] = [];
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    // The three app instances of the last test boot meanwhile: under load their boot (tsx on the source) took that
    // test to its timeout.
    workers.push(
      ...Array.from({ length: 3 }, (_, index) => new WorkerProcess('multi-process-outage-worker.fixtures.ts', index)),
    );
    redis = await PrivateRedis.start();
    await Promise.all(workers.map((worker) => worker.message('booted')));
  });

  afterAll(async () => {
    for (const worker of workers) worker.kill();
    for (const bus of buses) await bus.close().catch(() => undefined);
    for (const store of stores) await store.disconnect().catch(() => undefined);
    await redis?.dispose();
  });

  it('fails fast with a StoreError when Redis was never reachable, and never says "not found"', async () => {
    const port = await freePort();
    const store = createRedisStore({ url: `redis://127.0.0.1:${port}`, namespace: 'unreachable' });
    stores.push(store);
    await expectStoreError(store.connect());
    await expectStoreError(store.getFlow('some-flow'));
    await expectStoreError(store.claim('webhook:1', 1000));
    const { provider } = sharedServiceProvider('unreachable');
    const verikit = createVerikit({ provider, store, secret: scenarioSecret });
    await expectStoreError(verikit.get('AAAAAAAAAAAAAAAAAAAAAA'));
    await expectStoreError(verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() }));
  });

  it('fails a call to a Redis that hangs with a StoreError after the command timeout', async () => {
    const store = createRedisStore({ url: redis.url, namespace: 'hang', commandTimeoutMs: 200 });
    // Written and read back by a store with the default timeout: on a loaded machine a healthy Redis may take 200 ms.
    const patient = createRedisStore({ url: redis.url, namespace: 'hang' });
    stores.push(store, patient);
    await patient.setRoute('ussd:+2348090000000', 'flow-1', 60_000);
    await store.connect();
    redis.pause();
    try {
      const error = await expectStoreError(store.getRoute('ussd:+2348090000000'));
      expect(error.message).toContain('no answer within 200 ms');
      expect(String((error.cause as Error).message)).toBe('CommandTimeoutError (ETIMEDOUT)');
    } finally {
      redis.resume();
    }
    expect(await patient.getRoute('ussd:+2348090000000')).toBe('flow-1');
  });

  it('runs a script the server lost (NOSCRIPT) by sending it again', async () => {
    const store = createRedisStore({ url: redis.url, namespace: 'noscript' });
    stores.push(store);
    const raw = createClient({ url: redis.url });
    await raw.connect();
    try {
      await raw.scriptFlush();
      expect(await raw.scriptExists(compareAndSetScript.sha)).toEqual([0]);
      const { provider } = sharedServiceProvider('noscript');
      const verikit = createVerikit({ provider, store, secret: scenarioSecret });
      const flow = await verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() });
      expect(flow.status).toBe('awaiting-code');
      expect(await raw.scriptExists(compareAndSetScript.sha)).toEqual([1]);
    } finally {
      raw.destroy();
    }
  });

  it('gives typed errors while Redis is down, mid-run, and continues every flow intact when it returns', async () => {
    const namespace = 'outage';
    const clock = new ManualClock(Date.now());
    const commits: CommitRecord[] = [];
    const failures: Array<{ flowId: string; version: number }> = [];
    const instance = (label: string) => {
      const { provider } = sharedServiceProvider(label);
      const store = createRedisStore({ url: redis.url, namespace });
      const changeBus = createRedisChangeBus({ store });
      stores.push(store);
      buses.push(changeBus);
      const verikit = createVerikit({
        provider,
        store: recordingStore(store, commits, failures),
        changeBus,
        secret: scenarioSecret,
        clock,
        policies,
        guard: false,
      });
      return { store, changeBus, verikit };
    };
    const a = instance('a');
    const b = instance('b');

    const ussdNumbers = Array.from({ length: 3 }, () => freshPhoneNumber());
    const ussd = await Promise.all(ussdNumbers.map((phoneNumber) => a.verikit.start({ kind: 'ussd', phoneNumber })));
    const phone = await Promise.all(
      Array.from({ length: 6 }, () => a.verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() })),
    );
    const flows = [...ussd, ...phone];

    // Instance B watches one flow; it must be told to re-read it after the outage.
    const resynced = new Promise<readonly string[]>((resolve) => {
      const bus = createRedisChangeBus({ store: b.store, onResync: resolve });
      buses.push(bus);
      bus.subscribe(phone[0]!.id, () => {});
    });
    const watched: FlowView[] = [];
    b.changeBus.subscribe(phone[0]!.id, (view) => watched.push(view));
    await b.changeBus.subscribed(phone[0]!.id);

    // Load on both instances: reads and wrong codes on the phone flows, until told to stop.
    const outcomes = new Map<string, number>();
    let storeErrorsSeen = 0;
    let onStoreErrors: () => void = () => {};
    const enoughStoreErrors = new Promise<void>((resolve) => (onStoreErrors = resolve));
    let stop = false;
    const loop = async (verikit: Verikit, flowId: string) => {
      for (let round = 0; round < 20_000 && !stop; round += 1) {
        try {
          await verikit.get(flowId);
          await verikit.send(flowId, { type: 'submit-code', code: wrongCode });
          outcomes.set('ok', (outcomes.get('ok') ?? 0) + 1);
        } catch (error) {
          const code = VerikitError.isInstance(error) ? error.code : `untyped ${String(error)}`;
          outcomes.set(code, (outcomes.get(code) ?? 0) + 1);
          if (StoreError.isInstance(error) && ++storeErrorsSeen >= 20) onStoreErrors();
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
      }
    };
    const load = phone.slice(1).flatMap((flow) => [loop(a.verikit, flow.id), loop(b.verikit, flow.id)]);
    // Redis stops mid-run: once the load has made progress.
    for (let attempt = 0; attempt < 2000 && (outcomes.get('ok') ?? 0) < 20; attempt += 1)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect(outcomes.get('ok') ?? 0).toBeGreaterThanOrEqual(20);

    await redis.stop();

    // Every kind of call fails with a StoreError while Redis is down, none with "not found".
    await expectStoreError(a.verikit.get(phone[0]!.id));
    await expectStoreError(b.verikit.send(phone[0]!.id, { type: 'submit-code', code: rightCode }));
    await expectStoreError(a.verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() }));
    await expectStoreError(
      b.verikit.receive({
        id: randomUUID(),
        event: { type: 'ussd-verification', phoneNumber: ussdNumbers[0]!, status: 'success' },
      }),
    );
    await expectStoreError(a.store.claim('webhook:during-outage', 60_000));
    await enoughStoreErrors;
    stop = true;
    await Promise.all(load);
    expect(
      [...outcomes.keys()].every((code) => ['ok', 'store_unavailable', 'event_not_allowed'].includes(code)),
      JSON.stringify([...outcomes]),
    ).toBe(true);

    await redis.start();
    for (let attempt = 0; attempt < 200; attempt += 1) {
      // Both instances reconnect on their own backoff: wait for both (either one may still be offline).
      const ready = await Promise.all([a.store.getFlow(phone[0]!.id), b.store.getFlow(phone[0]!.id)]).then(
        () => true,
        () => false,
      );
      if (ready) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }

    // Every record is intact: present, decodable, and at the last acknowledged version (or one
    // further, when a write was applied but its answer was lost in the shutdown).
    for (const flow of flows) {
      const record = await a.store.getFlow(flow.id);
      expect(record, flow.id).toBeDefined();
      const acknowledged = Math.max(
        ...commits.filter((commit) => commit.flowId === flow.id).map((commit) => commit.version),
      );
      const unknown = failures.filter((failure) => failure.flowId === flow.id && failure.version > acknowledged).length;
      expect(record!.version).toBeGreaterThanOrEqual(acknowledged);
      expect(record!.version).toBeLessThanOrEqual(acknowledged + unknown);
      expect(await a.store.keyv.get(`flow:${flow.id}`)).toEqual(record);
    }
    expect(await resynced).toEqual([phone[0]!.id]);

    // Every flow continues. A provider call cut off by the outage is past its deadline once the
    // clock moves on; the flow then shows the outcome as unknown and takes the next step.
    clock.advance(policies.effectTimeoutMs ?? 15_000);
    clock.advance(20_000);
    for (const [index, flow] of ussd.entries()) {
      const result = await b.verikit.receive({
        id: randomUUID(),
        event: { type: 'ussd-verification', phoneNumber: ussdNumbers[index]!, status: 'success' },
      });
      expect(result).toMatchObject({ outcome: 'applied', flowId: flow.id, view: { status: 'verified' } });
    }
    for (const flow of phone) {
      let view = await a.verikit.get(flow.id);
      for (let step = 0; step < 10 && view.status !== 'verified'; step += 1) {
        if (view.allowed.includes('submit-code'))
          view = await b.verikit.send(flow.id, { type: 'submit-code', code: rightCode });
        else if (view.allowed.includes('resend')) view = await a.verikit.send(flow.id, { type: 'resend' });
        else throw new Error(`flow ${flow.id} is stuck in ${view.status}`);
      }
      expect(view.status).toBe('verified');
    }
    // Instance B's listener works again after the reconnection.
    const last = await a.verikit.get(phone[0]!.id);
    for (let attempt = 0; attempt < 200 && watched.at(-1)?.version !== last.version; attempt += 1)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect(watched.at(-1)?.version).toBe(last.version);
    expect(last.status).toBe('verified');
  });

  it('gives every caller in three processes a typed StoreError at once while Redis is down, loses nothing, and finishes every flow after', async () => {
    const namespace = 'multi-outage';
    const clockStart = Date.now();
    const commits: CommitRecord[] = [];
    const failures: Array<{ flowId: string; version: number }> = [];
    const { provider } = sharedServiceProvider('parent');
    const store = createRedisStore({ url: redis.url, namespace });
    stores.push(store);
    const clock = new ManualClock(clockStart);
    const verikit = createVerikit({
      provider,
      store: recordingStore(store, commits, failures),
      secret: scenarioSecret,
      clock,
      policies: outagePolicies,
      guard: false,
    });
    const flows = await Promise.all(
      Array.from(
        { length: 4 },
        async () => (await verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() })).id,
      ),
    );

    // Three app instances, each sending wrong codes and resends on every flow, and reading them.
    const plan: OutagePlan = { url: redis.url, namespace, flows, clockStart };
    const started = workers;
    for (const worker of started) worker.send(plan);
    await Promise.all(started.map((worker) => worker.message('ready')));
    for (const worker of started) worker.send('go');

    // Redis stops mid-run, once every instance has made progress: SHUTDOWN SAVE, so the data survives.
    await Promise.all(started.map((worker) => worker.message('progressed')));
    await redis.stop();
    for (const worker of started) worker.send('down');
    const outages = await Promise.all(started.map((worker) => worker.message<OutageReport>('outage')));
    const seen = outages.flatMap((report) => report.calls);

    // Every call settled at once: none was still waiting when its instance reported (3 s after
    // Redis stopped at the latest), and every StoreError came well below the 5 s command timeout,
    // which is all a call would get if commands waited for Redis (the offline queue) instead of failing.
    expect(outages.flatMap((report) => report.hanging ?? [])).toEqual([]);
    const storeErrors = seen.filter((call) => call.outcome === 'store_unavailable');
    expect(storeErrors.filter((call) => call.ms >= 2000)).toEqual([]);

    // Nothing but typed verikit errors, never "not found"; while Redis is down, every call of every
    // kind on every instance is a retryable StoreError (503).
    expect(outages.flatMap((report) => report.unexpected)).toEqual([]);
    expect(seen.filter((call) => call.notFound)).toEqual([]);
    const outcomes = [...new Set(seen.map((call) => call.outcome))];
    expect(
      outcomes.every((outcome) => ['ok', 'store_unavailable', 'event_not_allowed', 'conflict'].includes(outcome)),
      outcomes.join(', '),
    ).toBe(true);
    expect(storeErrors.every((call) => call.typedStoreError)).toBe(true);
    const down = seen.filter((call) => call.phase === 'down');
    expect(down).toHaveLength(started.length * (flows.length * 4 + 1));
    expect(down.filter((call) => !call.typedStoreError)).toEqual([]);

    await redis.start();
    for (let attempt = 0; attempt < 200; attempt += 1) {
      if (
        await store.getFlow(flows[0]!).then(
          () => true,
          () => false,
        )
      )
        break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }

    // Every record is intact after the restart: present, decodable, and at the last version any
    // process was told was written (or further, by the writes whose answer was lost in the shutdown).
    const acknowledged = [...commits, ...outages.flatMap((report) => report.commits)];
    const unanswered = [...failures, ...outages.flatMap((report) => report.failures)];
    for (const flowId of flows) {
      const record = await store.getFlow(flowId);
      expect(record, flowId).toBeDefined();
      expect(await store.keyv.get(`flow:${flowId}`)).toEqual(record);
      const last = Math.max(
        ...acknowledged.filter((commit) => commit.flowId === flowId).map((commit) => commit.version),
      );
      const unknown = unanswered.filter((failure) => failure.flowId === flowId && failure.version > last).length;
      expect(record!.version, flowId).toBeGreaterThanOrEqual(last);
      expect(record!.version, flowId).toBeLessThanOrEqual(last + unknown);
    }

    // The instances reconnect by themselves and finish every flow.
    for (const worker of started) worker.send('resume');
    const reports = await Promise.all(started.map((worker) => worker.message<OutageReport>('report')));
    expect(await Promise.all(started.map((worker) => worker.exited))).toEqual([0, 0, 0]);
    expect(reports.flatMap((report) => report.unexpected)).toEqual([]);
    const after = reports.flatMap((report) => report.calls).filter((call) => call.phase === 'after');
    const afterOutcomes = [...new Set(after.map((call) => call.outcome))];
    expect(
      afterOutcomes.every((outcome) => ['ok', 'event_not_allowed', 'conflict'].includes(outcome)),
      afterOutcomes.join(', '),
    ).toBe(true);

    const allCommits = [...commits, ...reports.flatMap((report) => report.commits)];
    const allUnanswered = [...failures, ...reports.flatMap((report) => report.failures)];
    for (const flowId of flows) {
      const record = (await store.getFlow(flowId))!;
      expect(record.value, flowId).toBe('verified');
      for (const report of reports) expect(report.finalStatus?.[flowId], flowId).toBe('verified');
      // No lost update: no version was acknowledged twice, each on top of the one before, and every
      // version up to the stored one was written by a call that was acknowledged or lost its answer.
      const flowCommits = allCommits.filter((commit) => commit.flowId === flowId);
      const versions = flowCommits.map((commit) => commit.version);
      expect(new Set(versions).size, flowId).toBe(versions.length);
      expect(flowCommits.every((commit) => commit.version === commit.expected + 1)).toBe(true);
      const written = new Set([
        ...versions,
        ...allUnanswered.filter((failure) => failure.flowId === flowId).map((failure) => failure.version),
      ]);
      const missing = Array.from({ length: record.version }, (_, index) => index + 1).filter(
        (version) => !written.has(version),
      );
      expect(missing, flowId).toEqual([]);
      expect(Math.max(...versions)).toBeLessThanOrEqual(record.version);
      expect(
        flowCommits.filter((commit) => commit.value === 'verified'),
        flowId,
      ).toHaveLength(1);
    }
  });
});
