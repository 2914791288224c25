/**
 * Shared by the multi-process tests and their workers: the scenario's policies, a provider that acts like
 * one shared service for every process, a store decorator that records every committed change, signed
 * webhooks, and the parent's handle on a worker process.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  EventNotAllowedError,
  FlowNotFoundError,
  StoreError,
  VerikitError,
  type FlowPolicies,
  type FlowStore,
  type ProviderV1,
} from '@verikit/core';
import { createGatewayWebhookParser } from '@verikit/gateway';
import { createTestProviderV1, type TestProviderV1 } from '@verikit/testing';

export const scenarioSecret = 'multi-process-secret-0123456789abcdefghij';
/** The webhook signing secret every process is configured with (Standard Webhooks form). */
export const scenarioWebhookSecret = `whsec_${Buffer.from('multi-process-webhook-key-0123456789').toString('base64')}`;
export const rightCode = '123456';
export const wrongCode = '000000';

/** Resends are open at once so they race; limits per number are out of the way (and the send guard: `guard: false` where these are used). */
export const scenarioPolicies: Partial<FlowPolicies> = {
  resendCooldownMs: 0,
  maxSendsPerFlow: 10,
  maxSendsPerHour: 1000,
  maxAttempts: 5,
};

/** One committed compare-and-set, as seen by the process that made it. */
export interface CommitRecord {
  readonly flowId: string;
  readonly version: number;
  readonly expected: number;
  readonly value: string;
  readonly attemptsLeft?: number;
}

/** One provider call, as recorded by the test double of the process that made it. */
export interface CallRecord {
  readonly operation: string;
  readonly idempotencyKey: string;
}

/** One user action or webhook, and what came of it. */
export interface ActionRecord {
  readonly flowId: string;
  readonly action: 'receive' | 'submit-right' | 'submit-wrong' | 'resend' | 'restart';
  /** `applied`/`no-active-flow` for receive; `accepted` or an error code otherwise. */
  readonly outcome: string;
  /** The flow's status when refused. */
  readonly status?: string;
}

/** One delivery of a signed webhook to the webhook handler, and its answer. */
export interface DeliveryRecord {
  /** The flow the webhook was signed for. */
  readonly flowId: string;
  readonly webhookId: string;
  readonly httpStatus: number;
  /** The answer's `status`: `applied`, `duplicate`, `in-progress`, … */
  readonly status: string;
  /** The answer's `flowId`, when it names one. */
  readonly appliedTo?: string;
}

export interface WorkerReport {
  readonly worker: number;
  readonly commits: CommitRecord[];
  readonly calls: CallRecord[];
  readonly actions: ActionRecord[];
  readonly deliveries: DeliveryRecord[];
  /** Anything that was not a typed verikit error: must stay empty. */
  readonly unexpected: string[];
}

export interface WorkerPlan {
  readonly url: string;
  /** Seed URLs of a Redis Cluster: the workers then use it instead of `url`. */
  readonly clusterUrls?: readonly string[];
  readonly namespace: string;
  readonly ussd: ReadonlyArray<{ flowId: string; phoneNumber: string }>;
  readonly lockout: readonly string[];
  readonly verify: readonly string[];
  /** Signed webhooks to deliver through the webhook handler, each `copies` times at once. */
  readonly webhooks?: readonly SignedWebhook[];
  readonly copies?: number;
}

/**
 * A test double that behaves like one service shared by every process: request ids are unique
 * across processes and a code check depends on the code only (a real service keeps that state; each
 * process's double would not know the others' requests). The service's signed webhooks are read
 * with the gateway's parser, the one reader of that body.
 */
export function sharedServiceProvider(processLabel: string): { provider: ProviderV1; double: TestProviderV1 } {
  const double = createTestProviderV1({ phoneCode: rightCode, webhooks: { parse: createGatewayWebhookParser() } });
  const phone = double.phone!;
  const provider: ProviderV1 = {
    ...double,
    phone: {
      channels: phone.channels,
      async send(input, context) {
        const result = await phone.send(input, context);
        return { requestId: `${processLabel}-${result.requestId}` };
      },
      check(input, context) {
        double.script('phone.check', ({ code }) => ({ valid: code === rightCode }));
        return phone.check(input, context);
      },
    },
  };
  return { provider, double };
}

/**
 * Wraps a store, recording every compare-and-set that wrote, and (when `failures` is given) every one
 * that threw: its outcome is unknown, it may have been applied. Everything else passes through.
 */
export function recordingStore(
  inner: FlowStore,
  commits: CommitRecord[],
  failures?: Array<{ flowId: string; version: number }>,
): FlowStore {
  return {
    getFlow: (id) => inner.getFlow(id),
    async compareAndSetFlow(record, expected, ttl) {
      let written: boolean;
      try {
        written = await inner.compareAndSetFlow(record, expected, ttl);
      } catch (error) {
        failures?.push({ flowId: record.id, version: record.version });
        throw error;
      }
      if (written) {
        const attemptsLeft = record.context.attemptsLeft;
        commits.push({
          flowId: record.id,
          version: record.version,
          expected,
          value: record.value,
          ...(typeof attemptsLeft === 'number' ? { attemptsLeft } : {}),
        });
      }
      return written;
    },
    getRoute: (key) => inner.getRoute(key),
    setRoute: (key, flowId, ttl) => inner.setRoute(key, flowId, ttl),
    claim: (key, ttl) => inner.claim(key, ttl),
    consume: (key, limit, windowMs, now) => inner.consume(key, limit, windowMs, now),
  };
}

/** How a refused or failed action is recorded: typed verikit errors by code, anything else as unexpected. */
export function outcomeOf(error: unknown, unexpected: string[]): { outcome: string; status?: string } {
  if (EventNotAllowedError.isInstance(error)) return { outcome: error.code, status: error.status };
  if (VerikitError.isInstance(error)) return { outcome: error.code };
  unexpected.push(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  return { outcome: 'unexpected' };
}

/** A webhook as the service delivers it: signed once, delivered as often as the test likes. */
export interface SignedWebhook {
  /** The flow it is meant for (for the test's bookkeeping; not sent). */
  readonly flowId: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * Signs `payload` as a Standard Webhooks sender does (`webhook-signature: v1,<base64 HMAC-SHA256 of
 * "id.timestamp.body">`, keyed with the base64 after `whsec_`), written here from the specification
 * rather than with the package verikit verifies with.
 */
export function signWebhook(
  flowId: string,
  webhookId: string,
  payload: Record<string, unknown>,
  now: number,
  secret: string = scenarioWebhookSecret,
): SignedWebhook {
  const body = JSON.stringify(payload);
  const timestamp = String(Math.floor(now / 1000));
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const signature = createHmac('sha256', key).update(`${webhookId}.${timestamp}.${body}`).digest('base64');
  return {
    flowId,
    body,
    headers: {
      'content-type': 'application/json',
      'webhook-id': webhookId,
      'webhook-timestamp': timestamp,
      'webhook-signature': `v1,${signature}`,
    },
  };
}

/** Delivers `webhook` to the endpoint and reads the answer. */
export async function deliverWebhook(
  handle: (request: Request) => Promise<Response>,
  webhook: SignedWebhook,
): Promise<DeliveryRecord> {
  const response = await handle(
    new Request('http://localhost/verikit/webhooks', { method: 'POST', headers: webhook.headers, body: webhook.body }),
  );
  const answer = (await response.json()) as { status: string; flowId?: string };
  return {
    flowId: webhook.flowId,
    webhookId: webhook.headers['webhook-id']!,
    httpStatus: response.status,
    status: answer.status,
    ...(answer.flowId === undefined ? {} : { appliedTo: answer.flowId }),
  };
}

const fixturesDirectory = dirname(fileURLToPath(import.meta.url));
const repositoryRoot = resolve(fixturesDirectory, '../../..');

/**
 * A worker process (a `*-worker.fixtures.ts` script beside this file), run with tsx on the source. The
 * worker talks in messages `{ <kind>: payload }`; {@link WorkerProcess.message} resolves with the
 * next payload of a kind not yet taken, or rejects when the worker exits first. `plan`, when given, is
 * sent at once; a worker that serves several plans (one per test) is sent each with {@link WorkerProcess.send}.
 */
export class WorkerProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  readonly #received = new Map<string, unknown[]>();
  readonly #waiting = new Map<string, Array<(payload: unknown) => void>>();

  constructor(script: string, index: number, plan?: unknown) {
    this.child = fork(join(fixturesDirectory, script), [String(index)], {
      cwd: repositoryRoot,
      execArgv: ['--import', 'tsx', '--conditions=@verikit/source'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.exited = new Promise((resolveExit) => this.child.once('exit', (code) => resolveExit(code)));
    this.child.on('message', (message) => {
      if (typeof message !== 'object' || message === null) return;
      for (const [kind, payload] of Object.entries(message)) {
        const waiter = this.#waiting.get(kind)?.shift();
        if (waiter) waiter(payload);
        else this.#received.set(kind, [...(this.#received.get(kind) ?? []), payload]);
      }
    });
    if (plan !== undefined) this.child.send(plan as never);
  }

  /** The payload of the worker's next `{ [kind]: payload }` message that no earlier call took. */
  message<T>(kind: string): Promise<T> {
    const queued = this.#received.get(kind);
    if (queued !== undefined && queued.length > 0) return Promise.resolve(queued.shift() as T);
    const received = new Promise<T>((resolveMessage) => {
      const waiting = this.#waiting.get(kind) ?? [];
      waiting.push(resolveMessage as (payload: unknown) => void);
      this.#waiting.set(kind, waiting);
    });
    const failed = this.exited.then((code): never => {
      throw new Error(`worker exited with ${code} before sending "${kind}"`);
    });
    const result = Promise.race([received, failed]);
    result.catch(() => {});
    return result;
  }

  send(message: unknown): void {
    this.child.send(message as never);
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

/** In a worker: the parent's messages, in order. */
export function parentMessages(): () => Promise<unknown> {
  const queue: unknown[] = [];
  const waiting: Array<(message: unknown) => void> = [];
  process.on('message', (message) => {
    const next = waiting.shift();
    if (next) next(message);
    else queue.push(message);
  });
  return () =>
    queue.length > 0 ? Promise.resolve(queue.shift()) : new Promise((resolveMessage) => waiting.push(resolveMessage));
}

/** Policies of the outage scenario: attempts and sends out of the way, so every flow can still finish after the outage. */
export const outagePolicies: Partial<FlowPolicies> = { ...scenarioPolicies, maxAttempts: 100, maxSendsPerFlow: 100 };

export interface OutagePlan {
  readonly url: string;
  readonly namespace: string;
  /** Phone flows, started by the parent. */
  readonly flows: readonly string[];
  /** Every process's manual clock starts here. */
  readonly clockStart: number;
}

/** One call made by an outage worker, timed. */
export interface TimedCall {
  readonly flowId: string;
  readonly action: 'get' | 'submit-wrong' | 'submit-right' | 'resend' | 'start';
  /** `load`: before and while Redis stops; `down`: after the parent said Redis is stopped; `after`: Redis is back. */
  readonly phase: 'load' | 'down' | 'after';
  /** `ok`, or the verikit error code, or `unexpected`. */
  readonly outcome: string;
  /** The flow's status, when an event was refused. */
  readonly status?: string;
  readonly ms: number;
  /** The error was a FlowNotFoundError: must never happen here. */
  readonly notFound: boolean;
  /** The error was a retryable StoreError with HTTP status 503. */
  readonly typedStoreError: boolean;
}

export interface OutageReport {
  readonly worker: number;
  readonly commits: CommitRecord[];
  /** Compare-and-sets that threw: their outcome is unknown. */
  readonly failures: Array<{ flowId: string; version: number }>;
  readonly calls: TimedCall[];
  readonly unexpected: string[];
  /** Calls still waiting for an answer when the outage was reported, and for how long (ms). */
  readonly hanging?: Array<Pick<TimedCall, 'flowId' | 'action' | 'phase' | 'ms'>>;
  /** The status each flow had when this worker last read it. */
  readonly finalStatus?: Record<string, string>;
}

/** Times `run`, recording its outcome. */
export async function timed<T>(
  calls: TimedCall[],
  unexpected: string[],
  call: Pick<TimedCall, 'flowId' | 'action' | 'phase'>,
  run: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  const started = performance.now();
  try {
    const value = await run();
    calls.push({ ...call, outcome: 'ok', ms: performance.now() - started, notFound: false, typedStoreError: false });
    return { ok: true, value };
  } catch (error) {
    const ms = performance.now() - started;
    const typedStoreError = StoreError.isInstance(error) && error.isRetryable;
    calls.push({
      ...call,
      ...outcomeOf(error, unexpected),
      ms,
      notFound: FlowNotFoundError.isInstance(error),
      typedStoreError,
    });
    return { ok: false, error };
  }
}
