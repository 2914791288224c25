/**
 * A worker of redis-send-guard.test.ts, run as its own Node process: for each plan it receives over IPC
 * (until "done"), it builds an engine on the shared Redis (or cluster) with the plan's guard options and
 * the flow store's own guard counts, waits for "go", starts a phone flow to each of its numbers at once,
 * and reports how many the provider was asked to send.
 */
import { createVerikit, RateLimitedError, type SendGuardOptions } from '@verikit/core';
import { createTestProviderV1 } from '@verikit/testing';
import { parentMessages } from './multi-process.fixtures.js';
import { createRedisClusterStore } from './redis-cluster-store.js';
import { createRedisStore } from './create-redis-store.js';

/** What a worker is told to do. */
export interface GuardWorkerPlan {
  readonly url: string;
  readonly clusterUrls?: readonly string[];
  readonly namespace: string;
  readonly secret: string;
  readonly guard: SendGuardOptions;
  readonly numbers: readonly string[];
  /** The client key of every start, or per start by index (`client-<index>`) when 'each'. */
  readonly client: string | 'each' | undefined;
}

/** What a worker saw. */
export interface GuardWorkerReport {
  readonly sent: number;
  readonly admitted: number;
  readonly refused: number;
  /** Refusals whose retryAfterMs was not a wait within the window. */
  readonly badRetry: number;
  /** Anything else that went wrong (error names and codes only). */
  readonly other: string[];
}

const next = parentMessages();
// Booting (tsx on the source) is most of a worker's cost: one process serves every plan of its describe, in turn.
process.send!({ booted: true });
for (let plan = await next(); plan !== 'done'; plan = await next())
  process.send!({ report: await run(plan as GuardWorkerPlan) });
process.disconnect();

/** Builds the engine of `plan`, says it is ready, waits for "go", starts every number at once and reports. */
async function run(plan: GuardWorkerPlan): Promise<GuardWorkerReport> {
  const store = plan.clusterUrls
    ? createRedisClusterStore({ urls: plan.clusterUrls, namespace: plan.namespace })
    : createRedisStore({ url: plan.url, namespace: plan.namespace });
  await store.connect();
  const provider = createTestProviderV1();
  const verikit = createVerikit({ provider, store, secret: plan.secret, guard: plan.guard });
  process.send!({ ready: true });
  await next();

  let admitted = 0;
  let refused = 0;
  let badRetry = 0;
  const other: string[] = [];
  await Promise.all(
    plan.numbers.map(async (phoneNumber, index) => {
      const client = plan.client === 'each' ? `client-${process.argv[2]}-${index}` : plan.client;
      try {
        await verikit.start({ kind: 'phone', phoneNumber }, client === undefined ? undefined : { client });
        admitted += 1;
      } catch (error) {
        if (RateLimitedError.isInstance(error)) {
          refused += 1;
          if (!(error.retryAfterMs > 0 && error.retryAfterMs <= 3_600_000)) badRetry += 1;
        } else
          other.push(
            error instanceof Error ? `${error.name}: ${(error as { code?: string }).code ?? ''}` : typeof error,
          );
      }
    }),
  );
  await store.close();
  return {
    sent: provider.calls.filter((call) => call.operation === 'phone.send').length,
    admitted,
    refused,
    badRetry,
    other,
  };
}
