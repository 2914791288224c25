import { randomUUID } from 'node:crypto';
/**
 * One app instance of the multi-process test, run as its own Node process:
 * `node --import tsx --conditions=@verikit/source multi-process-worker.fixtures.ts <index>`.
 * For each plan it receives over IPC (until "done"), it waits for "go", runs webhooks (received events, and signed
 * deliveries to the webhook endpoint), code submits and resends against the shared flows all at once, and sends
 * back what it committed, called and saw.
 */
import { createWebhookHandler } from '@verikit/http';
import { createVerikit, type FlowView } from '@verikit/core';
import { createRedisChangeBus } from './redis-change-bus.js';
import { createRedisClusterStore } from './redis-cluster-store.js';
import { createRedisStore } from './create-redis-store.js';
import {
  deliverWebhook,
  outcomeOf,
  parentMessages,
  recordingStore,
  rightCode,
  scenarioPolicies,
  scenarioSecret,
  scenarioWebhookSecret,
  sharedServiceProvider,
  wrongCode,
  type ActionRecord,
  type CommitRecord,
  type DeliveryRecord,
  type SignedWebhook,
  type WorkerPlan,
  type WorkerReport,
} from './multi-process.fixtures.js';

const worker = Number(process.argv[2] ?? '0');
const send = (message: unknown) => process.send!(message);

const next = parentMessages();

const pause = () => new Promise((resolve) => setTimeout(resolve, Math.random() * 3));

// Booting (tsx on the source) is most of a worker's cost: one process serves every plan of its describe, in turn.
send({ booted: worker });
for (let plan = await next(); plan !== 'done'; plan = await next()) send({ report: await serve(plan as WorkerPlan) });
process.disconnect();

/** Runs one plan on engines of its own: ready, then on "go" everything at once; what it committed, called and saw. */
async function serve(plan: WorkerPlan): Promise<WorkerReport> {
  const commits: CommitRecord[] = [];
  const actions: ActionRecord[] = [];
  const deliveries: DeliveryRecord[] = [];
  const unexpected: string[] = [];
  const { provider, double } = sharedServiceProvider(`w${worker}`);
  const redisStore = plan.clusterUrls
    ? createRedisClusterStore({ urls: plan.clusterUrls, namespace: plan.namespace })
    : createRedisStore({ url: plan.url, namespace: plan.namespace });
  await redisStore.connect();
  const changeBus = createRedisChangeBus({ store: redisStore });
  const verikit = createVerikit({
    provider,
    store: recordingStore(redisStore, commits),
    changeBus,
    secret: scenarioSecret,
    policies: scenarioPolicies,
    guard: false,
  });
  const handleWebhook = createWebhookHandler({ verikit, secret: scenarioWebhookSecret });

  async function act(
    flowId: string,
    action: ActionRecord['action'],
    run: () => Promise<FlowView>,
  ): Promise<FlowView | undefined> {
    try {
      const view = await run();
      actions.push({ flowId, action, outcome: 'accepted' });
      return view;
    } catch (error) {
      actions.push({ flowId, action, ...outcomeOf(error, unexpected) });
      return undefined;
    }
  }

  /** Two "success" webhooks for the flow's number, and a restart that must be refused. */
  async function ussd(flowId: string, phoneNumber: string): Promise<void> {
    const webhook = async () => {
      try {
        const result = await verikit.receive({
          id: randomUUID(),
          event: { type: 'ussd-verification', phoneNumber, status: 'success' },
        });
        actions.push({ flowId, action: 'receive', outcome: result.outcome });
      } catch (error) {
        actions.push({ flowId, action: 'receive', ...outcomeOf(error, unexpected) });
      }
    };
    await Promise.all([webhook(), webhook(), act(flowId, 'restart', () => verikit.send(flowId, { type: 'restart' }))]);
  }

  /** Wrong codes until the flow is locked; submits refused while another is checked are tried again. */
  async function lockout(flowId: string): Promise<void> {
    for (let attempt = 0; attempt < 400; attempt += 1) {
      const view = await act(flowId, 'submit-wrong', () =>
        verikit.send(flowId, { type: 'submit-code', code: wrongCode }),
      );
      if (view?.done) return;
      const last = actions.at(-1);
      if (last?.status === 'locked') return;
      await pause();
    }
  }

  /** A resend and a wrong code at once, then the right code until the flow is verified. */
  async function verify(flowId: string): Promise<void> {
    await Promise.all([
      act(flowId, 'resend', () => verikit.send(flowId, { type: 'resend' })),
      act(flowId, 'submit-wrong', () => verikit.send(flowId, { type: 'submit-code', code: wrongCode })),
    ]);
    for (let attempt = 0; attempt < 400; attempt += 1) {
      const view = await act(flowId, 'submit-right', () =>
        verikit.send(flowId, { type: 'submit-code', code: rightCode }),
      );
      if (view?.status === 'verified') return;
      const last = actions.at(-1);
      if (last?.status === 'verified' || last?.status === 'locked') return;
      await pause();
    }
  }

  /** One delivery of the signed webhook to this instance's webhook endpoint. */
  async function deliver(webhook: SignedWebhook): Promise<void> {
    try {
      deliveries.push(await deliverWebhook(handleWebhook, webhook));
    } catch (error) {
      unexpected.push(`delivery: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
    }
  }

  send({ ready: worker });
  await next();
  await Promise.all([
    ...plan.ussd.map(({ flowId, phoneNumber }) => ussd(flowId, phoneNumber)),
    ...plan.lockout.map((flowId) => lockout(flowId)),
    ...plan.verify.map((flowId) => verify(flowId)),
    ...(plan.webhooks ?? []).flatMap((webhook) => Array.from({ length: plan.copies ?? 1 }, () => deliver(webhook))),
  ]);
  await changeBus.close();
  await redisStore.close();
  return {
    worker,
    commits,
    calls: double.calls.map((call) => ({ operation: call.operation, idempotencyKey: call.idempotencyKey })),
    actions,
    deliveries,
    unexpected,
  };
}
