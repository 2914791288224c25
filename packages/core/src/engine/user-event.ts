import type { AnyMachineSnapshot } from 'xstate';
import { InvalidInputError, parseInput } from '@verikit/provider';
import { EventNotAllowedError } from '../errors/event-not-allowed-error.js';
import type { EffectMemory, FlowEnvironment } from '../flows/flow-definition.js';
import {
  callOptionsOf,
  parseFlowId,
  userEventSchema,
  type CallOptions,
  type ParsedUserEvent,
  type UserEvent,
} from '../inputs/inputs.js';
import { callOnce } from './idempotent-call.js';
import type { FlowContextBase } from '../flows/flow-context.js';
import { resendBlockedReason } from '../flows/machine-base.js';
import type { CommitLoop } from './commit-loop.js';
import type { EffectRunner } from './effect-runner.js';
import type { Loaded } from './flow-records.js';
import type { SendLimit } from './send-limit.js';
import type { FlowStore, StoreCall } from '../store/flow-store.js';
import { toView, type FlowView } from '../flows/view.js';

/** What applying a user event uses. */
export interface UserEventDeps {
  readonly env: FlowEnvironment;
  readonly commits: CommitLoop;
  readonly limits: SendLimit;
  readonly effects: EffectRunner;
  /** Where a keyed resend keeps its key (decision 1660). */
  readonly store: FlowStore;
  /** Reads a flow as of now: the answer a repeated keyed resend gets. */
  readonly read: (flowId: string, call?: StoreCall) => Promise<FlowView>;
  /** The engine call's share of the store. */
  readonly call?: StoreCall;
}

/** A refusal as the caller sees it: what the flow accepts now, and why a resend must wait. */
function refuse(eventType: string, env: FlowEnvironment) {
  return (loaded: Loaded, snapshot: AnyMachineSnapshot, now: number): never => {
    const view = toView(snapshot, loaded.record, now, env.secrets);
    let reason: string | undefined;
    if ((eventType === 'resend' || eventType === 'restart') && !view.done) {
      reason = resendBlockedReason(snapshot.context as FlowContextBase, now, env.policies);
    }
    throw new EventNotAllowedError(eventType, view.status, view.allowed, reason);
  };
}

/**
 * `verikit.send`: the flow's definition turns the user event into its machine's event (hashing a
 * submitted code, generating a new OTP kept in memory only); the change is committed, passing the
 * send guard (for the `client` of `options`) and taking a unit of the send limit when it starts a
 * send, and the provider calls it asks for are run.
 */
export async function applyUserEvent(
  deps: UserEventDeps,
  rawFlowId: string,
  rawEvent: UserEvent,
  options?: CallOptions,
): Promise<FlowView> {
  const flowId = parseFlowId(rawFlowId);
  const event = parseInput(userEventSchema, rawEvent, 'event');
  const { client, idempotencyKey } = callOptionsOf(options);
  if (idempotencyKey === undefined) return applyEvent(deps, flowId, event, client);
  if (event.type !== 'resend' && event.type !== 'restart')
    throw new InvalidInputError([
      { field: 'options.idempotencyKey', message: 'is taken by the events that send (resend, restart) only' },
    ]);
  const { env, store, call } = deps;
  // A repeat answers the flow as it is now: the resend it repeats was applied once (decision 1660).
  return callOnce(
    { store, secrets: env.secrets, ttlMs: env.policies.retentionMs, waitMs: env.policies.effectTimeoutMs * 2, call },
    {
      family: 'event',
      idempotencyKey,
      params: { flowId, event },
      run: () => applyEvent(deps, flowId, event, client),
      encode: () => '',
      decode: () => deps.read(flowId, call),
    },
  );
}

async function applyEvent(
  deps: UserEventDeps,
  flowId: string,
  event: ParsedUserEvent,
  client: string | undefined,
): Promise<FlowView> {
  const { env, commits, limits, call } = deps;
  const memory: EffectMemory = {};
  let takeLimit: ReturnType<SendLimit['forEvent']> | undefined;
  const committed = await commits.commit(
    flowId,
    (loaded, now) => {
      const { definition } = loaded.flow;
      takeLimit ??= limits.forEvent(definition, env, client, call);
      return {
        event: definition.toEvent(event, { flowId, now, memory }, env),
        onRefused: refuse(event.type, env),
        beforeWrite: (current, effects, at) => takeLimit!(current.record.context, effects, at),
      };
    },
    undefined,
    call,
  );
  return deps.effects.run(flowId, committed.effects, committed.view, memory, committed.loaded, call);
}
