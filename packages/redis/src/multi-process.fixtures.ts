/**
 * Shared by the multi-process test and its worker: the scenario's policies, a provider that acts like
 * one shared service for every process, and a store decorator that records every committed change.
 */
import { EventNotAllowedError, VerikitError, type FlowPolicies, type FlowStore, type ProviderV1 } from '@verikit/core';
import { createTestProvider, type TestProvider } from '@verikit/testing';

export const scenarioSecret = 'multi-process-secret-0123456789abcdefghij';
export const rightCode = '123456';
export const wrongCode = '000000';

/** Resends are open at once so they race; limits per number are out of the way. */
export const scenarioPolicies: Partial<FlowPolicies> = { resendCooldownMs: 0, maxSendsPerFlow: 10, maxSendsPerHour: 1000, maxAttempts: 5 };

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

export interface WorkerReport {
  readonly worker: number;
  readonly commits: CommitRecord[];
  readonly calls: CallRecord[];
  readonly actions: ActionRecord[];
  /** Anything that was not a typed verikit error: must stay empty. */
  readonly unexpected: string[];
}

export interface WorkerPlan {
  readonly url: string;
  readonly namespace: string;
  readonly ussd: ReadonlyArray<{ flowId: string; phoneNumber: string }>;
  readonly lockout: readonly string[];
  readonly verify: readonly string[];
}

/**
 * A test double that behaves like one service shared by every process: request ids are unique
 * across processes and a code check depends on the code only (a real service keeps that state; each
 * process's double would not know the others' requests).
 */
export function sharedServiceProvider(processLabel: string): { provider: ProviderV1; double: TestProvider } {
  const double = createTestProvider({ phoneCode: rightCode });
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
export function recordingStore(inner: FlowStore, commits: CommitRecord[], failures?: Array<{ flowId: string; version: number }>): FlowStore {
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
