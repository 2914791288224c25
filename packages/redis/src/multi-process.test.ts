import { randomUUID } from 'node:crypto';
import { createWebhookHandler } from '@verikit/http';
import { createVerikit, type FlowRecord, type FlowView } from '@verikit/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisChangeBus } from './redis-change-bus.js';
import { createRedisStore } from './create-redis-store.js';
import type { RedisFlowStore } from './redis-flow-store.js';
import {
  deliverWebhook,
  recordingStore,
  scenarioPolicies,
  scenarioSecret,
  scenarioWebhookSecret,
  sharedServiceProvider,
  signWebhook,
  type ActionRecord,
  type CallRecord,
  type CommitRecord,
  type WorkerPlan,
  type WorkerReport,
} from './multi-process.fixtures.js';
import { createRedisClusterStore } from './redis-cluster-store.js';
import { clusterSkipReason, clusterUrls, deleteClusterNamespace } from './redis-cluster.fixtures.js';
import { deleteNamespace, redisSkipReason, redisUrl, uniqueNamespace } from './redis-test-env.fixtures.js';
import { useWorkerProcesses } from './worker-processes.fixtures.js';

/** Where the processes meet: one Redis, and (when there is one) the test cluster. */
const targets = [
  {
    name: 'one Redis',
    skipReason: await redisSkipReason('@verikit/redis multi-process'),
    plan: { url: redisUrl } as Pick<WorkerPlan, 'url' | 'clusterUrls'>,
    createStore: (namespace: string) => createRedisStore({ url: redisUrl, namespace }),
    cleanup: (namespace: string) => deleteNamespace(namespace),
  },
  {
    name: 'Redis Cluster',
    skipReason: await clusterSkipReason('@verikit/redis multi-process on Redis Cluster'),
    plan: { url: clusterUrls[0] ?? '', clusterUrls } as Pick<WorkerPlan, 'url' | 'clusterUrls'>,
    createStore: (namespace: string) => createRedisClusterStore({ urls: clusterUrls, namespace }),
    cleanup: (namespace: string) => deleteClusterNamespace(clusterUrls, namespace),
  },
];
const workers = 3;
const maxAttempts = scenarioPolicies.maxAttempts!;

let numberSeed = Math.floor(Math.random() * 40_000_000);
function freshPhoneNumber(): string {
  numberSeed += 1;
  return `+234807${String(numberSeed % 10_000_000).padStart(7, '0')}`;
}

function byFlow<T extends { flowId?: string; idempotencyKey?: string }>(items: T[], flowId: string): T[] {
  return items.filter((item) => item.flowId === flowId || item.idempotencyKey?.startsWith(`${flowId}:effect:`));
}

describe.each(targets)('three processes sharing $name', ({ skipReason, plan: target, createStore, cleanup }) => {
  if (skipReason !== undefined) {
    it.skip(`skipped: ${skipReason}`, () => {});
    return;
  }
  const namespace = uniqueNamespace('multi');
  let store: RedisFlowStore;
  const workerProcesses = useWorkerProcesses<WorkerReport>('multi-process-worker.fixtures.ts', workers);
  /** Every worker gets the same plan, starts at once with the others, and reports. */
  const runWorkers = (plan: WorkerPlan) => workerProcesses(() => plan);

  beforeAll(async () => {
    store = createStore(namespace);
    await store.connect();
  });

  afterAll(async () => {
    await store?.close();
    await cleanup(namespace);
  });

  it('run concurrent webhooks, code submits and resends on the same flows with no lost update', async () => {
    const commits: CommitRecord[] = [];
    const { provider, double } = sharedServiceProvider('parent');
    const changeBus = createRedisChangeBus({ store });
    const verikit = createVerikit({
      provider,
      store: recordingStore(store, commits),
      changeBus,
      secret: scenarioSecret,
      policies: scenarioPolicies,
      guard: false,
    });

    // The flows, started here; every worker acts on every flow.
    const ussd = await Promise.all(
      Array.from({ length: 6 }, async () => {
        const phoneNumber = freshPhoneNumber();
        const flow = await verikit.start({ kind: 'ussd', phoneNumber });
        return { flowId: flow.id, phoneNumber };
      }),
    );
    const lockout = await Promise.all(
      Array.from(
        { length: 4 },
        async () => (await verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() })).id,
      ),
    );
    const verify = await Promise.all(
      Array.from(
        { length: 6 },
        async () => (await verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() })).id,
      ),
    );
    const allFlows = [...ussd.map((flow) => flow.flowId), ...lockout, ...verify];

    // This process watches every flow over pub/sub: the changes are all made by the workers.
    const seen = new Map<string, FlowView[]>();
    for (const flowId of allFlows) {
      seen.set(flowId, []);
      changeBus.subscribe(flowId, (view) => seen.get(flowId)!.push(view));
    }
    await Promise.all(allFlows.map((flowId) => changeBus.subscribed(flowId)));

    const reports = await runWorkers({ ...target, namespace, ussd, lockout, verify });

    const allCommits: CommitRecord[] = [...commits, ...reports.flatMap((report) => report.commits)];
    const allCalls: CallRecord[] = [
      ...double.calls.map((call) => ({ operation: call.operation, idempotencyKey: call.idempotencyKey })),
      ...reports.flatMap((report) => report.calls),
    ];
    const actions: ActionRecord[] = reports.flatMap((report) => report.actions);

    // Every refusal was a typed verikit error: nothing else escaped.
    expect(reports.flatMap((report) => report.unexpected)).toEqual([]);
    expect(new Set(actions.map((action) => action.outcome))).toSatisfy((outcomes: Set<string>) =>
      [...outcomes].every((outcome) =>
        ['accepted', 'applied', 'no-active-flow', 'event_not_allowed'].includes(outcome),
      ),
    );

    for (const flowId of allFlows) {
      const record = await store.keyv.get<FlowRecord>(`flow:${flowId}`);
      expect(record, flowId).toBeDefined();
      const flowCommits = byFlow(allCommits, flowId);
      // No lost update: across the four processes, versions 1..n were each committed exactly once,
      // each on top of the one before, and the stored record is the last of them.
      const versions = flowCommits.map((commit) => commit.version).sort((a, b) => a - b);
      expect(versions, flowId).toEqual(Array.from({ length: record!.version }, (_, index) => index + 1));
      expect(flowCommits.every((commit) => commit.version === commit.expected + 1)).toBe(true);
      // The final view reached this process over pub/sub, after every earlier one it saw.
      const views = seen.get(flowId)!;
      expect(views.at(-1)?.version, flowId).toBe(record!.version);
      expect(views.map((view) => view.version)).toEqual([...views.map((view) => view.version)].sort((a, b) => a - b));
    }

    for (const { flowId } of ussd) {
      const record = (await store.getFlow(flowId))!;
      expect(record.value).toBe('verified');
      const flowCommits = byFlow(allCommits, flowId);
      expect(flowCommits.filter((commit) => commit.value === 'verified')).toHaveLength(1);
      // Six webhooks for the flow: exactly one applied.
      const receives = byFlow(actions, flowId).filter((action) => action.action === 'receive');
      expect(receives).toHaveLength(2 * workers);
      expect(receives.filter((action) => action.outcome === 'applied')).toHaveLength(1);
      expect(
        byFlow(actions, flowId).filter((action) => action.action === 'restart' && action.outcome === 'accepted'),
      ).toHaveLength(0);
      expect(byFlow(allCalls, flowId).filter((call) => call.operation === 'ussd.initiate')).toHaveLength(1);
    }

    for (const flowId of lockout) {
      const record = (await store.getFlow(flowId))!;
      expect(record.value).toBe('locked');
      expect(record.context.attemptsLeft).toBe(0);
      // Many more wrong codes were sent than allowed; exactly maxAttempts were checked.
      const submits = byFlow(actions, flowId).filter((action) => action.action === 'submit-wrong');
      expect(submits.length).toBeGreaterThan(maxAttempts);
      expect(submits.filter((action) => action.outcome === 'accepted')).toHaveLength(maxAttempts);
      expect(byFlow(allCalls, flowId).filter((call) => call.operation === 'phone.check')).toHaveLength(maxAttempts);
      const attempts = byFlow(allCommits, flowId).flatMap((commit) =>
        commit.attemptsLeft === undefined ? [] : [commit.attemptsLeft],
      );
      expect(Math.min(...attempts)).toBe(0);
      expect(byFlow(allCalls, flowId).filter((call) => call.operation === 'phone.send')).toHaveLength(1);
    }

    let acceptedResends = 0;
    for (const flowId of verify) {
      const record = (await store.getFlow(flowId))!;
      expect(record.value).toBe('verified');
      const flowCommits = byFlow(allCommits, flowId);
      expect(flowCommits.filter((commit) => commit.value === 'verified')).toHaveLength(1);
      const flowActions = byFlow(actions, flowId);
      const resends = flowActions.filter(
        (action) => action.action === 'resend' && action.outcome === 'accepted',
      ).length;
      acceptedResends += resends;
      const submits = flowActions.filter(
        (action) => action.action.startsWith('submit') && action.outcome === 'accepted',
      ).length;
      const calls = byFlow(allCalls, flowId);
      // At most one provider call per user action: one send for the start and one per accepted
      // resend, one check per accepted submit, each with its own effect id.
      expect(calls.filter((call) => call.operation === 'phone.send')).toHaveLength(1 + resends);
      expect(calls.filter((call) => call.operation === 'phone.check')).toHaveLength(submits);
      expect(new Set(calls.map((call) => call.idempotencyKey)).size).toBe(calls.length);
      expect(submits).toBeLessThanOrEqual(maxAttempts * (1 + resends));
    }
    expect(acceptedResends).toBeGreaterThan(0);
    await changeBus.close();
  });

  it('apply one signed webhook, delivered by every process at once, exactly once', async () => {
    const commits: CommitRecord[] = [];
    const { provider } = sharedServiceProvider('parent');
    const verikit = createVerikit({
      provider,
      store: recordingStore(store, commits),
      secret: scenarioSecret,
      policies: scenarioPolicies,
      guard: false,
    });
    const handleWebhook = createWebhookHandler({ verikit, secret: scenarioWebhookSecret });
    const copies = 3;

    // USSD flows waiting for the dial, and for each the service's one "success" webhook, signed once
    // here with the scheme every engine is configured with (Standard Webhooks): every worker delivers
    // the very same bytes, `copies` times at once.
    const signed = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const phoneNumber = freshPhoneNumber();
        const flow = await verikit.start({ kind: 'ussd', phoneNumber });
        expect(flow.status).toBe('awaiting-dial');
        return signWebhook(
          flow.id,
          `msg_${randomUUID().replaceAll('-', '')}`,
          { event: 'USSD_VERIFICATION', phoneNumber, status: 'success' },
          Date.now(),
        );
      }),
    );
    const reports = await runWorkers({
      ...target,
      namespace,
      ussd: [],
      lockout: [],
      verify: [],
      webhooks: signed,
      copies,
    });
    expect(reports.flatMap((report) => report.unexpected)).toEqual([]);
    const deliveries = reports.flatMap((report) => report.deliveries);
    const allCommits = [...commits, ...reports.flatMap((report) => report.commits)];

    for (const webhook of signed) {
      const { flowId } = webhook;
      const answers = deliveries.filter((delivery) => delivery.flowId === flowId);
      expect(answers).toHaveLength(workers * copies);
      // Exactly one delivery, on one of the processes, applied the event; every other one, on any
      // process, was told the message is a duplicate or is being processed.
      const applied = answers.filter((answer) => answer.httpStatus === 200 && answer.status === 'applied');
      expect(applied, JSON.stringify(answers)).toHaveLength(1);
      expect(applied[0]!.appliedTo).toBe(flowId);
      const others = answers
        .filter((answer) => answer !== applied[0])
        .map((answer) => `${answer.httpStatus} ${answer.status}`);
      expect(
        others.every((answer) => answer === '200 duplicate' || answer === '409 in-progress'),
        others.join(', '),
      ).toBe(true);

      // The flow went to verified once, with no lost update.
      const record = (await store.getFlow(flowId))!;
      expect(record.value).toBe('verified');
      const flowCommits = byFlow(allCommits, flowId);
      expect(flowCommits.filter((commit) => commit.value === 'verified')).toHaveLength(1);
      expect(flowCommits.map((commit) => commit.version).sort((a, b) => a - b)).toEqual(
        Array.from({ length: record.version }, (_, index) => index + 1),
      );
      expect(flowCommits.every((commit) => commit.version === commit.expected + 1)).toBe(true);

      // A later redelivery of the message, to yet another instance, changes nothing.
      expect(await deliverWebhook(handleWebhook, webhook)).toMatchObject({ httpStatus: 200, status: 'duplicate' });
      expect((await store.getFlow(flowId))!.version).toBe(record.version);
    }
    // The deliveries really overlapped: some were turned away while another was being applied.
    expect(deliveries.filter((delivery) => delivery.status === 'in-progress').length).toBeGreaterThan(0);
  });
});
