import type { AnyMachineSnapshot } from 'xstate';
import { parseInput } from '@verikit/provider';
import { EventNotAllowedError } from '../errors/event-not-allowed-error.js';
import type { EffectMemory, FlowEnvironment } from '../flows/flow-definition.js';
import { clientOf, type CallOptions } from '../guard/call-options.js';
import type { FlowContextBase } from '../flows/flow-context.js';
import { resendBlockedReason } from '../flows/machine-base.js';
import { userEventSchema, type UserEvent } from '../inputs/inputs.js';
import { parseFlowId } from '../inputs/parse-flow-id.js';
import type { CommitLoop } from './commit-loop.js';
import type { EffectRunner } from './effect-runner.js';
import type { Loaded } from './flow-records.js';
import type { SendLimit } from './send-limit.js';
import type { StoreCall } from '../store/flow-store.js';
import { toView, type FlowView } from '../flows/view.js';

/** What applying a user event uses. */
export interface UserEventDeps {
  readonly env: FlowEnvironment;
  readonly commits: CommitLoop;
  readonly limits: SendLimit;
  readonly effects: EffectRunner;
  /** The engine call's share of the store. */
  readonly call?: StoreCall;
}

/** A refusal as the caller sees it: what the flow accepts now, and why a resend must wait. */
function refuse(eventType: string, env: FlowEnvironment) {
  return (loaded: Loaded, snapshot: AnyMachineSnapshot, now: number): never => {
    const view = toView(snapshot, loaded.record, now);
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
  const { env, commits, limits, call } = deps;
  const flowId = parseFlowId(rawFlowId);
  const event = parseInput(userEventSchema, rawEvent, 'event');
  const client = clientOf(options);
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
