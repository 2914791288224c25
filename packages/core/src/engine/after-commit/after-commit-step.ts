import type { AnyMachineSnapshot } from 'xstate';
import type { EffectRequest } from '../../flows/flow-context.js';
import type { FlowRecord, StoreCall } from '../../store/flow-store.js';
import type { CompiledFlow } from '../flow-records.js';
import type { FlowEvent, LazyView } from '../../flows/view.js';

/** What wrote the change: a new flow (`start`), an event applied to it (`event`), or a passed deadline (`tick`). */
export type CommitCause = 'start' | 'event' | 'tick';

/**
 * One committed change of a flow, as every after-commit step receives it. Everything here is already stored: the
 * record, with the events its outbox staged, won its compare-and-set.
 */
export interface CommittedChange {
  readonly cause: CommitCause;
  /** The record the change replaced; undefined for a new flow. */
  readonly before: FlowRecord | undefined;
  /** The record as written (its version, state, context and outbox). */
  readonly record: FlowRecord;
  /** The snapshot before the change; undefined for a new flow. */
  readonly previous: AnyMachineSnapshot | undefined;
  /** The snapshot the record holds. */
  readonly next: AnyMachineSnapshot;
  /** The flow's definition, machine and transitions. */
  readonly flow: CompiledFlow;
  /** The provider calls the change asks for; the engine runs them after every step. */
  readonly effects: readonly EffectRequest[];
  /** The lifecycle events the change caused, in order. */
  readonly events: readonly FlowEvent[];
  /** The ids of the events the change staged in the record's outbox for the app's webhook (none without one). */
  readonly staged: readonly string[];
  /** The route keys the definition points at the flow after this change. */
  readonly routes: readonly string[];
  /** How long the record lives in the store. */
  readonly ttlMs: number;
  /** The view of the record, made when first asked for. */
  readonly view: LazyView;
  /** True when the write itself published the view to the other instances (a Redis bus on one node). */
  readonly publishedWithWrite: boolean;
  /**
   * True when the flow's id has reached nobody outside the engine call that made the change: a start under way that
   * gave it to no route key, lifecycle listener or event webhook. Nobody can have subscribed to the flow yet
   * (docs/decisions/1830-a-start-s-own-commits-ask-only-for-pattern-subscribers.md).
   */
  readonly unseen: boolean;
  /** The engine clock's time of the change. */
  readonly now: number;
  /** The engine call's share of the store: pass it with every store command. */
  readonly call: StoreCall | undefined;
  /**
   * Runs `work` once the commit has left the flow's queue (at once when the commit runs in none): work that
   * commits to another flow must not wait in this flow's queue, or two flows ending each other would wait forever.
   */
  outsideQueue(work: () => Promise<void>): Promise<void>;
}

/**
 * One consequence of a committed change: a function of the change, like a hook in ky's `afterResponse`. A step
 * that has nothing to do returns undefined rather than a resolved promise (commits are the engine's hot path). A
 * throw reaches the caller of the commit (whose change stands); a step whose failure must not reach it catches and
 * logs.
 *
 * Adding a step (a counter, a timer, a new key):
 * 1. write it in its own file in this folder, as a factory of its dependencies that returns the step:
 *    `export function countSends(deps: { store: FlowStore }): AfterCommitStep { return (change) => … }`; where the
 *    engine's configuration leaves it nothing to do (an option that is off), the factory returns undefined instead,
 *    and the step is not in the list at all (docs/decisions/1680-after-commit-steps-one-file-each.md);
 * 2. give it a test of its own beside it (`count-sends.test.ts`), calling the step with a
 *    `CommittedChange` (`committedChange` in `after-commit.fixtures.ts` makes one);
 * 3. add it to the ordered list in `after-commit-steps.ts` where it belongs, and its dependencies to
 *    `AfterCommitDeps`.
 * No other step and not the commit loop change. The commit loop runs the list after each compare-and-set it wins
 * (`runAfterCommit` in `commit-loop.ts`): in order, each step once the one before settled. What must be stored with the change itself (staging the outbox
 * in the record, the record's time to live) is not a step: it is part of the compare-and-set, in
 * `CommitLoop.write` (`commit-loop.ts`).
 */
export type AfterCommitStep = (change: CommittedChange) => void | Promise<void>;
