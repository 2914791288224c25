import type { AnyMachineSnapshot } from 'xstate';
import type { Logger } from '@verikit/provider';
import { ConflictError } from '../errors/conflict-error.js';
import type { FlowEnvironment, InternalEvent } from '../flows/flow-definition.js';
import type { EffectRequest } from '../flows/flow-context.js';
import { errorCode } from '../logging/error-code.js';
import type { FlowRecord, FlowStore } from '../store/flow-store.js';
import type { FlowChangeBus } from './change-bus.js';
import type { FlowQueue } from './flow-queue.js';
import type { FlowRecords, Loaded } from './flow-records.js';
import type { Clock } from '../time/clock.js';
import { toView, type FlowView } from './view.js';
import type { EngineTelemetry } from '../telemetry/engine-telemetry.js';
import { lifecycleEventsOf, type LifecycleListeners } from './lifecycle-events.js';

/** What one try of a commit does with the flow it loaded. */
export interface Decision {
  readonly event: InternalEvent;
  /** Called when the event changes nothing: throw to refuse, return to accept silently. */
  onRefused(loaded: Loaded, snapshot: AnyMachineSnapshot, now: number): void;
  /** Runs before a change with these effects is written (the send limit); throwing writes nothing. Undefined: nothing to wait for. */
  beforeWrite?(loaded: Loaded, effects: readonly EffectRequest[], now: number): Promise<void> | undefined;
}

/** A committed (or refused-silently) event: the view, the effects to run now, and the record as committed. */
export interface Committed {
  readonly view: FlowView;
  readonly effects: EffectRequest[];
  readonly loaded: Loaded;
  readonly changed: boolean;
}

/** For events the engine applies itself (effect results, provider events): a refusal means the flow moved on. */
export const acceptSilently = (): void => {};

const maxCommitAttempts = 25;

/** The effects among a transition's actions. */
export function effectsOf(actions: readonly unknown[]): EffectRequest[] {
  return (actions as Array<{ type: string; params?: unknown }>)
    .filter((action) => action.type === 'runEffect')
    .map((action) => action.params as EffectRequest);
}

/**
 * Every write of a flow: load, compute, compare-and-set, retried on conflict a bounded number of
 * times; then the flow's route keys, and the view to subscribers. Effects are returned, never run
 * here: they run only once the snapshot that asks for them is committed
 * (docs/decisions/0004-commits-and-concurrency.md).
 */
export class CommitLoop {
  readonly #deps: {
    records: FlowRecords;
    queue: FlowQueue;
    store: FlowStore;
    clock: Clock;
    logger: Logger;
    bus: FlowChangeBus;
    env: FlowEnvironment;
    telemetry: EngineTelemetry;
    events: LifecycleListeners;
  };

  constructor(deps: {
    records: FlowRecords;
    queue: FlowQueue;
    store: FlowStore;
    clock: Clock;
    logger: Logger;
    bus: FlowChangeBus;
    env: FlowEnvironment;
    telemetry: EngineTelemetry;
    events: LifecycleListeners;
  }) {
    this.#deps = deps;
  }

  /**
   * Applies the event `decide` computes, and returns the committed view and the effects to run.
   *
   * `committedHere` is the record this process committed last for the flow (when an effect's result
   * comes back, the one committed before the call): the first try starts from it instead of reading
   * the store. Nothing is lost if another instance changed the flow since: the compare-and-set then
   * fails, and the next try reads the store. An event the hint refuses is tried again on a fresh read.
   */
  commit(
    flowId: string,
    decide: (loaded: Loaded, now: number) => Decision,
    committedHere?: Loaded,
  ): Promise<Committed> {
    return this.#deps.telemetry.commit(flowId, () => this.#commit(flowId, decide, committedHere));
  }

  #commit(
    flowId: string,
    decide: (loaded: Loaded, now: number) => Decision,
    committedHere: Loaded | undefined,
  ): Promise<Committed> {
    const { records, queue, clock } = this.#deps;
    return queue.run(flowId, async () => {
      let hint = committedHere;
      for (let attempt = 0; attempt < maxCommitAttempts; attempt += 1) {
        const fromHint = hint !== undefined;
        const loaded = hint ?? (await records.load(flowId));
        hint = undefined;
        const now = clock.now();
        const current = records.ticked(loaded, now);
        const decision = decide(loaded, now);
        const [next, actions] = records.next(loaded, current, decision.event);
        if (next === current && fromHint) continue;
        if (next === current) {
          // A passed deadline is a change of its own: it is committed (and told: \`expired\`) even when the
          // event is refused. A lost compare-and-set means another instance moved the flow: read again.
          const ticked = current === loaded.snapshot ? loaded : await this.#commitTick(loaded, current, now);
          if (ticked === undefined) continue;
          decision.onRefused(ticked, current, now);
          return { view: toView(current, ticked.record, now), effects: [], loaded: ticked, changed: false };
        }
        const effects = effectsOf(actions);
        const pending = decision.beforeWrite?.(loaded, effects, now);
        if (pending !== undefined) await pending;
        const record: FlowRecord = {
          ...loaded.record,
          version: loaded.record.version + 1,
          value: next.value as string,
          context: next.context as Record<string, unknown>,
          updatedAt: now,
        };
        const view = await this.write(record, current, next, now);
        if (view !== undefined) {
          this.#deps.logger.debug('verikit.flow.changed', {
            flowId,
            kind: record.kind,
            status: view.status,
            version: record.version,
          });
          this.#deps.telemetry.changed(record.kind, current.value as string, view.status);
          await this.publish(view);
          return { view, effects, loaded: { record, flow: loaded.flow, snapshot: next }, changed: true };
        }
        // A stale hint is no contention: read again at once.
        if (!fromHint) await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 * (attempt + 1)));
      }
      throw new ConflictError();
    });
  }

  /** Commits a tick that changed the flow; undefined when the stored version had moved on. */
  async #commitTick(loaded: Loaded, ticked: AnyMachineSnapshot, now: number): Promise<Loaded | undefined> {
    const record: FlowRecord = {
      ...loaded.record,
      version: loaded.record.version + 1,
      value: ticked.value as string,
      context: ticked.context as Record<string, unknown>,
      updatedAt: now,
    };
    const view = await this.write(record, loaded.snapshot, ticked, now);
    if (view === undefined) return undefined;
    await this.publish(view);
    return { record, flow: loaded.flow, snapshot: ticked };
  }

  /**
   * Compare-and-sets `record` over the version before it (0: a new flow), then writes the route keys
   * the change adds. Returns the view to publish; undefined when the stored version had moved on.
   */
  async write(
    record: FlowRecord,
    previous: AnyMachineSnapshot | undefined,
    next: AnyMachineSnapshot,
    now: number,
  ): Promise<FlowView | undefined> {
    const { records, store, env } = this.#deps;
    const ttl = records.ttlFor(next, now);
    if (!(await store.compareAndSetFlow(record, record.version - 1, ttl))) return undefined;
    const routes = records.flow(record.kind).definition.routes?.(previous, next, env);
    if (routes !== undefined) for (const key of routes) await store.setRoute(key, record.id, ttl);
    // Committed: the lifecycle events it caused go to this engine's listeners, once.
    this.#deps.events.emit(lifecycleEventsOf(previous, next, record));
    return toView(next, record, now);
  }

  /**
   * Writes route keys to a flow that a committed change learned of outside its snapshot (the ids a
   * send returned, which its delivery receipts name), living as long as the flow's record. A failing
   * write is logged: the flow stands, only its receipts will find no flow.
   */
  async addRoutes(flowId: string, keys: readonly string[], snapshot: AnyMachineSnapshot): Promise<void> {
    const { records, store, clock, logger } = this.#deps;
    try {
      const ttl = records.ttlFor(snapshot, clock.now());
      for (const key of keys) await store.setRoute(key, flowId, ttl);
    } catch (error) {
      logger.warn('verikit.route.failed', { flowId, error: errorCode(error) });
    }
  }

  /** Hands a committed view to the change bus; a failing bus is logged, never the caller's error. */
  async publish(view: FlowView): Promise<void> {
    try {
      await this.#deps.bus.publish(view);
    } catch (error) {
      this.#deps.logger.warn('verikit.publish.failed', { flowId: view.id, error: errorCode(error) });
    }
  }
}
