import type { AnyMachineSnapshot } from 'xstate';
import type { Logger } from '@verikit/provider';
import { ConflictError } from '../errors/conflict-error.js';
import { StoreError } from '../errors/store-error.js';
import { safeStoreCause } from '../store/safe-store-cause.js';
import type { FlowDefinition, FlowEnvironment, InternalEvent } from '../flows/flow-definition.js';
import type { EffectRequest } from '../flows/flow-context.js';
import type { FlowRecord, FlowStore, StoreCall } from '../store/flow-store.js';
import type { FlowChangeBus, PublishingWrite } from './change-bus.js';
import { afterCommitSteps } from './after-commit/after-commit-steps.js';
import type { FlowTimers } from '../store/flow-timers.js';
import type { AfterCommitStep, CommitCause, CommittedChange } from './after-commit/after-commit-step.js';
import { RecentlyUsed, type FlowRecords, type Loaded } from './flow-records.js';
import type { Clock } from '../time/clock.js';
import { lazyView, lifecycleEventsOf, type LazyView } from '../flows/view.js';
import type { EngineTelemetry } from '../telemetry/engine-telemetry.js';
import type { LifecycleListeners } from './after-commit/emit-lifecycle-events.js';
import type { EventWebhook } from '../outbound/event-webhook.js';
import type { SendGuard } from '../guard/send-guard.js';

/** What one try of a commit does with the flow it loaded. */
export interface Decision {
  readonly event: InternalEvent;
  /** Called when the event changes nothing: throw to refuse, return to accept silently. */
  onRefused(loaded: Loaded, snapshot: AnyMachineSnapshot, now: number): void;
  /** Runs before a change with these effects is written (the send limit); throwing writes nothing. Undefined: nothing to wait for. */
  beforeWrite?(loaded: Loaded, effects: readonly EffectRequest[], now: number): Promise<void> | undefined;
  /**
   * Route keys to point at the flow with a change this event makes (a send's delivery receipt routes): written by the
   * compare-and-set itself when the bus's publishing write can ({@link Committed.routesWritten}), else left to the
   * caller (decision 2010).
   */
  readonly routesWithWrite?: readonly string[];
}

/** A committed (or refused-silently) event: its view (made when asked for), the effects to run now, and the record as committed. */
export interface Committed {
  readonly view: LazyView;
  readonly effects: EffectRequest[];
  readonly loaded: Loaded;
  readonly changed: boolean;
  /** The decision's `routesWithWrite` were written with the change, in the same step. */
  readonly routesWritten: boolean;
}

/** The record of a committed change from `loaded` to `next`. */
function nextRecord(loaded: FlowRecord, next: AnyMachineSnapshot, now: number): FlowRecord {
  const record: FlowRecord = {
    version: loaded.version + 1,
    schemaVersion: loaded.schemaVersion,
    id: loaded.id,
    kind: loaded.kind,
    value: next.value as string,
    context: next.context as Record<string, unknown>,
    createdAt: loaded.createdAt,
    updatedAt: now,
  };
  return loaded.outbox === undefined ? record : { ...record, outbox: loaded.outbox };
}

/** For events the engine applies itself (effect results, provider events): a refusal means the flow moved on. */
export const acceptSilently = (): void => {};

const maxCommitAttempts = 25;

/** How many flows' latest records an engine keeps to start their next event from (decision 1430). */
const recentFlows = 1000;

/** The effects among a transition's actions. */
export function effectsOf(actions: readonly unknown[]): EffectRequest[] {
  const effects: EffectRequest[] = [];
  for (const action of actions as Array<{ type: string; params?: unknown }>)
    if (action.type === 'runEffect') effects.push(action.params as EffectRequest);
  return effects;
}

/** The routes (or staged webhook ids) of a change that has none, most changes: one array, never written to. */
const noRoutes: readonly string[] = Object.freeze([]);
/** How a write with no queue to wait for runs work that must wait until the commit leaves the flow's queue. */
const runAtOnce = (work: () => Promise<void>) => work();

/** What the commit loop uses; written once, for its constructor and its after-commit steps alike. */
export interface CommitLoopDeps {
  readonly records: FlowRecords;
  readonly queue: FlowQueue;
  readonly store: FlowStore;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly bus: FlowChangeBus;
  readonly env: FlowEnvironment;
  readonly telemetry: EngineTelemetry;
  readonly events: LifecycleListeners;
  readonly webhook: EventWebhook | undefined;
  /** Where a change that makes its flow's wake due schedules it, before it is written. */
  readonly timers: FlowTimers;
  /** The send guard, told of the sends each commit announces; undefined when it is off. */
  readonly guard: SendGuard | undefined;
}

/** One write of a flow's record ({@link CommitLoop.write}). */
export interface FlowWrite {
  /** The record to write, its version one above the stored one (1: a new flow). */
  readonly record: FlowRecord;
  /** The record as loaded; undefined for a new flow. */
  readonly before?: Loaded;
  /** The snapshot `record` holds. */
  readonly next: AnyMachineSnapshot;
  readonly cause: CommitCause;
  readonly now: number;
  /** The provider calls the change asks for. */
  readonly effects?: readonly EffectRequest[];
  readonly call?: StoreCall | undefined;
  /** Where work that must wait until the commit leaves the flow's queue goes; undefined: it runs at once. */
  readonly outsideQueue?: Array<() => Promise<void>>;
  /** {@link Decision.routesWithWrite}. */
  readonly routesWithWrite?: readonly string[];
}

/**
 * Every write of a flow: load, decide, compare-and-set, retried on conflict a bounded number of times. What a
 * committed change causes (route keys, superseding older flows, lifecycle events, the event webhook's pass,
 * logs and telemetry, publishing the view, the recent records) is the ordered list of
 * after-commit steps in `after-commit/`, run once the compare-and-set won. Effects are returned, never run
 * here: they run only once the snapshot that asks for them is committed
 * (docs/decisions/0004-commits-and-concurrency.md).
 */
export class CommitLoop {
  readonly #deps: CommitLoopDeps;
  /** The store's writes that publish in the same command, when the bus offers them for this store. */
  readonly #publishing: PublishingWrite | undefined;
  /** The publishing writes write the routes a change brings ({@link PublishingWrite.writesRoutes}). */
  readonly #publishingWritesRoutes: boolean;
  /**
   * The latest record this engine committed or read of the flows it used last: an event starts from it instead of a
   * store read. A record another instance changed since fails the compare-and-set on its version, and the commit then
   * reads the store (docs/decisions/1430-start-from-the-record-committed-here.md). The `rememberRecent` step fills it.
   */
  readonly #recent = new RecentlyUsed<Loaded>(recentFlows);
  readonly #afterCommit: readonly AfterCommitStep[];
  /**
   * Flows of a start under way here whose id has reached nobody outside this engine (no route key names them, no
   * lifecycle listener or event webhook was told of them): a publishing write need not ask who follows them
   * (docs/decisions/1830-a-start-s-own-commits-ask-only-for-pattern-subscribers.md).
   */
  readonly #unseen = new Set<string>();

  constructor(deps: CommitLoopDeps) {
    this.#deps = deps;
    this.#publishing = deps.bus.publishingWrite?.(deps.store);
    this.#publishingWritesRoutes = this.#publishing?.writesRoutes === true;
    this.#afterCommit = afterCommitSteps({
      ...deps,
      publishing: this.#publishing,
      recent: this.#recent,
      supersede: (flowId, call) =>
        this.commit(
          flowId,
          (_loaded, now) => ({ event: { type: 'superseded', now }, onRefused: acceptSilently }),
          undefined,
          call,
        ),
    });
  }

  /**
   * Runs `work`, the rest of a start that wrote flow `flowId` (its provider calls and their commits), with the flow
   * unseen: its id has reached nobody outside this engine call, so no follower can have subscribed to it, and each
   * publishing write says so. `named`: the start gave the id away already (a route key, a lifecycle listener, the
   * event webhook), and nothing is unseen. A later change that names the flow ends it too ({@link write}).
   */
  async whileUnseen<T>(flowId: string, named: boolean, work: () => Promise<T>): Promise<T> {
    if (named) return work();
    this.#unseen.add(flowId);
    try {
      return await work();
    } finally {
      this.#unseen.delete(flowId);
    }
  }

  /**
   * Applies the event `decide` computes, and returns the committed view and the effects to run.
   *
   * `committedHere` is the record this process committed last for the flow (when an effect's result
   * comes back, the one committed before the call; without it, the record this engine committed or read last for
   * the flow, if it is among the last 1,000 it used): the first try starts from it instead of reading
   * the store. Nothing is lost if another instance changed the flow since: the compare-and-set then
   * fails, and the next try reads the store. An event the hint refuses is tried again on a fresh read.
   * `call`: the engine call's share of the store, passed with every command.
   */
  async commit(
    flowId: string,
    decide: (loaded: Loaded, now: number) => Decision,
    committedHere?: Loaded,
    call?: StoreCall,
  ): Promise<Committed> {
    const outsideQueue: Array<() => Promise<void>> = [];
    const committed = await this.#deps.telemetry.commit(flowId, () =>
      this.#commit(flowId, decide, committedHere, call, outsideQueue),
    );
    // Out of this flow's queue: two flows ending each other at once must not wait for each other's queue.
    for (const work of outsideQueue) await work();
    return committed;
  }

  #commit(
    flowId: string,
    decide: (loaded: Loaded, now: number) => Decision,
    committedHere: Loaded | undefined,
    call: StoreCall | undefined,
    outsideQueue: Array<() => Promise<void>>,
  ): Promise<Committed> {
    const { records, queue, clock } = this.#deps;
    return queue.run(flowId, async () => {
      let hint = committedHere ?? this.#recent.get(flowId);
      for (let attempt = 0; attempt < maxCommitAttempts; attempt += 1) {
        const fromHint = hint !== undefined;
        if (!fromHint) this.#recent.forget(flowId);
        const loaded = hint ?? (await records.load(flowId, call));
        hint = undefined;
        const now = clock.now();
        const current = records.ticked(loaded, now);
        const decision = decide(loaded, now);
        const [next, actions] = records.next(loaded, current, decision.event);
        if (next === current && fromHint) continue;
        if (next === current) {
          // A passed deadline is a change of its own: it is committed (and told: \`expired\`) even when the
          // event is refused. A lost compare-and-set means another instance moved the flow: read again.
          const ticked = current === loaded.snapshot ? loaded : await this.#commitTick(loaded, current, now, call);
          if (ticked === undefined) continue;
          if (ticked === loaded) this.#recent.remember(flowId, ticked);
          decision.onRefused(ticked, current, now);
          return {
            view: lazyView(current, ticked.record, now, this.#deps.env.secrets),
            effects: [],
            loaded: ticked,
            changed: false,
            routesWritten: false,
          };
        }
        const effects = effectsOf(actions);
        const pending = decision.beforeWrite?.(loaded, effects, now);
        if (pending !== undefined) await pending;
        const record = nextRecord(loaded.record, next, now);
        const written = await this.write({
          record,
          before: loaded,
          next,
          cause: 'event',
          now,
          effects,
          call,
          outsideQueue,
          routesWithWrite: decision.routesWithWrite,
        });
        if (written !== undefined)
          return {
            view: written.view,
            effects,
            loaded: { record: written.record, flow: loaded.flow, snapshot: next },
            changed: true,
            routesWritten: written.routesWritten,
          };
        // A stale hint is no contention: read again at once.
        if (!fromHint) await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 * (attempt + 1)));
      }
      throw new ConflictError();
    });
  }

  /** Commits a tick that changed the flow; undefined when the stored version had moved on. */
  async #commitTick(
    loaded: Loaded,
    ticked: AnyMachineSnapshot,
    now: number,
    call: StoreCall | undefined,
  ): Promise<Loaded | undefined> {
    const record = nextRecord(loaded.record, ticked, now);
    const written = await this.write({ record, before: loaded, next: ticked, cause: 'tick', now, call });
    if (written === undefined) return undefined;
    return { record: written.record, flow: loaded.flow, snapshot: ticked };
  }

  /**
   * Compare-and-sets `record` over the version before it (0: a new flow), then runs the after-commit steps. Returns
   * the view and the record as written; undefined, running no step, when the stored version had moved on.
   *
   * What must be stored with the change itself happens here, inside the compare-and-set, not in a step: the
   * lifecycle events the app's webhook sends are staged in the record's outbox (their ids announced to every
   * instance first), the record's time to live covers them, and with a bus that offers publishing writes a
   * change that adds no route key is published to the other instances by the write, and writes the routes the write
   * brings (`routesWithWrite`, `routesWritten`: decision 2010).
   */
  async write(
    write: FlowWrite,
  ): Promise<{ view: LazyView; record: FlowRecord; named: boolean; routesWritten: boolean } | undefined> {
    const { records, store, env, webhook } = this.#deps;
    const { next, now, call, before } = write;
    const previous = before?.snapshot;
    const events = lifecycleEventsOf(previous, next, write.record);
    // The webhook's events are written with the change itself; their ids are known to every instance first.
    const staged = webhook?.stage(write.record, events, now);
    const record = staged?.record ?? write.record;
    const ids = staged?.ids ?? noRoutes;
    const ttlMs = webhook ? webhook.ttlFor(record, records.ttlFor(next, now), now) : records.ttlFor(next, now);
    const flow = before?.flow ?? records.flow(record.kind);
    const routes = flow.definition.routes?.(previous, next, env) ?? noRoutes;
    const view = lazyView(next, record, now, env.secrets);
    if (ids.length > 0) await webhook!.announce(ids, now);
    // The flow's timer is scheduled before the write, like the webhook's ids (decision 1560).
    const wake = wakeToSchedule(flow.definition, previous, next);
    if (wake !== undefined) await this.#deps.timers.schedule(record.id, wake);
    // Refused: the webhook's ids stay. Another instance may have committed the same event (same version, same type).
    // One command writes and publishes, unless route keys must be written between the two (a subscriber that
    // sees the change must find them).
    const publishedWithWrite = this.#publishing !== undefined && routes.length === 0;
    const routesWithWrite = publishedWithWrite && this.#publishingWritesRoutes ? write.routesWithWrite : undefined;
    const won = publishedWithWrite
      ? await this.#publishing!.compareAndSetAndPublish(
          record,
          record.version - 1,
          ttlMs,
          view,
          call,
          this.#unseen.has(record.id),
          routesWithWrite,
        )
      : await store.compareAndSetFlow(record, record.version - 1, ttlMs, call);
    if (!won) return undefined;
    // Whether the change names the flow outside this engine: a route key, a lifecycle listener, the event webhook.
    // From then on the flow may be followed, whatever its start still does (decision 1830).
    const named = routes.length > 0 || ids.length > 0 || this.#deps.events.hears(events);
    if (named) this.#unseen.delete(record.id);
    // A start's first write is unseen too: its id is handed out only when the start returns or names it.
    const unseen = !named && (before === undefined || this.#unseen.has(record.id));
    const outsideQueue = write.outsideQueue;
    const after = runAfterCommit(this.#afterCommit, {
      cause: write.cause,
      before: before?.record,
      record,
      previous,
      next,
      flow,
      effects: write.effects ?? [],
      events,
      staged: ids,
      routes,
      ttlMs,
      view,
      publishedWithWrite,
      unseen,
      now,
      call,
      outsideQueue: outsideQueue === undefined ? runAtOnce : async (work) => void outsideQueue.push(work),
    });
    if (after !== undefined) await after;
    return { view, record, named, routesWritten: routesWithWrite !== undefined };
  }
}

/**
 * The wake a change from `previous` to `next` must schedule before it is written, or undefined when it needs none (no
 * timer, or the same one the change before it scheduled). Scheduled before the compare-and-set, like the event
 * webhook's ids: a process that dies after the write leaves the timer to the others, and a write that loses only
 * leaves an early wake, which finds nothing due (docs/decisions/1560-durable-flow-timers.md).
 */
function wakeToSchedule(
  definition: FlowDefinition,
  previous: AnyMachineSnapshot | undefined,
  next: AnyMachineSnapshot,
): number | undefined {
  const wake = definition.wakeAt?.(next);
  if (wake === undefined || (previous !== undefined && definition.wakeAt?.(previous) === wake)) return undefined;
  return wake;
}

/**
 * Serializes this process's commits to one flow; other processes are kept out by compare-and-set.
 * When the store failed the work ahead (a `StoreError`), the work queued behind it fails at once
 * with a StoreError of its own instead of trying in turn: with a store that hangs, the k-th caller
 * would otherwise wait k times the store's timeout.
 *
 * Work on a flow with nothing queued starts at once, in the caller's turn: no promise to wait on first. This runs
 * for every commit.
 */
export class FlowQueue {
  /** Per flow, the last work queued: settles when it has, with the store's failure it met (undefined for none). */
  readonly #tails = new Map<string, Promise<Error | undefined>>();

  run<T>(flowId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(flowId);
    const current =
      previous === undefined
        ? startNow(work)
        : previous.then((storeFailure) => {
            if (storeFailure !== undefined) {
              throw new StoreError('the flow store failed the call queued ahead of this one on the same flow', {
                cause: storeFailure,
              });
            }
            return work();
          });
    const settled: Promise<Error | undefined> = current.then(
      () => this.#release(flowId, settled, undefined),
      (error: unknown) =>
        this.#release(flowId, settled, StoreError.isInstance(error) ? safeStoreCause(error) : undefined),
    );
    this.#tails.set(flowId, settled);
    return current;
  }

  /** Forgets the flow's queue when `settled` is still its last work; returns the failure for the work behind it. */
  #release(flowId: string, settled: Promise<Error | undefined>, failure: Error | undefined): Error | undefined {
    if (this.#tails.get(flowId) === settled) this.#tails.delete(flowId);
    return failure;
  }
}

/** `work()`, with a synchronous throw as a rejection, as when it ran in a `then`. */
function startNow<T>(work: () => Promise<T>): Promise<T> {
  try {
    return work();
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

/**
 * Runs the after-commit steps in order, each once the one before settled; the first throw stops the rest (a
 * rejection). Undefined when every step was done at once: most commits wait for no step, and a commit then makes no
 * promise for them (no async frame, no microtask).
 */
export function runAfterCommit(steps: readonly AfterCommitStep[], change: CommittedChange): Promise<void> | undefined {
  for (let index = 0; index < steps.length; index += 1) {
    let pending: void | Promise<void>;
    try {
      pending = steps[index]!(change);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    if (pending !== undefined) return runAfter(pending, steps, index + 1, change);
  }
  return undefined;
}

/** {@link runAfterCommit} from step `from` on, once `pending` (the step before it) settled. */
async function runAfter(
  pending: Promise<void>,
  steps: readonly AfterCommitStep[],
  from: number,
  change: CommittedChange,
): Promise<void> {
  await pending;
  for (let index = from; index < steps.length; index += 1) {
    const next = steps[index]!(change);
    if (next !== undefined) await next;
  }
}
