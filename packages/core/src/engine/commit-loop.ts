import type { AnyMachineSnapshot } from 'xstate';
import type { Logger } from '@verikit/provider';
import { ConflictError } from '../errors/conflict-error.js';
import type { FlowEnvironment, InternalEvent } from '../flows/flow-definition.js';
import type { EffectRequest } from '../flows/flow-context.js';
import { errorCode } from '../logging/error-code.js';
import type { FlowRecord, FlowStore, StoreCall } from '../store/flow-store.js';
import type { FlowChangeBus, PublishingWrite } from './change-bus.js';
import type { FlowQueue } from './flow-queue.js';
import type { FlowRecords, Loaded } from './flow-records.js';
import type { Clock } from '../time/clock.js';
import { lazyView, type FlowView, type LazyView } from './view.js';
import type { EngineTelemetry } from '../telemetry/engine-telemetry.js';
import { lifecycleEventsOf, type LifecycleListeners } from './lifecycle-events.js';
import type { EventWebhook } from '../outbound/event-webhook.js';
import { RecentlyUsed } from './recently-used.js';

/** What one try of a commit does with the flow it loaded. */
export interface Decision {
  readonly event: InternalEvent;
  /** Called when the event changes nothing: throw to refuse, return to accept silently. */
  onRefused(loaded: Loaded, snapshot: AnyMachineSnapshot, now: number): void;
  /** Runs before a change with these effects is written (the send limit); throwing writes nothing. Undefined: nothing to wait for. */
  beforeWrite?(loaded: Loaded, effects: readonly EffectRequest[], now: number): Promise<void> | undefined;
}

/** A committed (or refused-silently) event: its view (made when asked for), the effects to run now, and the record as committed. */
export interface Committed {
  readonly view: LazyView;
  readonly effects: EffectRequest[];
  readonly loaded: Loaded;
  readonly changed: boolean;
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

/** A flow whose route key a newer flow took: `superseded` is applied to it once the newer flow's commit is done. */
interface Displaced {
  readonly flowId: string;
  readonly key: string;
}

/** For events the engine applies itself (effect results, provider events): a refusal means the flow moved on. */
export const acceptSilently = (): void => {};

const maxCommitAttempts = 25;

/** How many flows' latest records an engine keeps to start their next event from (decision 1430). */
const recentFlows = 1000;

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
    webhook: EventWebhook | undefined;
  };
  /** The store's writes that publish in the same command, when the bus offers them for this store. */
  readonly #publishing: PublishingWrite | undefined;
  /** Views that went to the other instances with their write: `publish` hands them to local listeners only. */
  readonly #publishedWithWrite = new WeakSet<LazyView>();
  /**
   * The latest record this engine committed or read of the flows it used last: an event starts from it instead of a
   * store read. A record another instance changed since fails the compare-and-set on its version, and the commit then
   * reads the store (docs/decisions/1430-start-from-the-record-committed-here.md).
   */
  readonly #recent = new RecentlyUsed<Loaded>(recentFlows);

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
    webhook: EventWebhook | undefined;
  }) {
    this.#deps = deps;
    this.#publishing = deps.bus.publishingWrite?.(deps.store);
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
    const displaced: Displaced[] = [];
    const committed = await this.#deps.telemetry.commit(flowId, () =>
      this.#commit(flowId, decide, committedHere, call, displaced),
    );
    // Out of this flow's queue: two flows ending each other at once must not wait for each other's queue.
    for (const older of displaced) await this.#supersede(older, call);
    return committed;
  }

  #commit(
    flowId: string,
    decide: (loaded: Loaded, now: number) => Decision,
    committedHere: Loaded | undefined,
    call: StoreCall | undefined,
    displaced: Displaced[],
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
          this.#recent.remember(flowId, ticked);
          decision.onRefused(ticked, current, now);
          return {
            view: lazyView(current, ticked.record, now),
            effects: [],
            loaded: ticked,
            changed: false,
          };
        }
        const effects = effectsOf(actions);
        const pending = decision.beforeWrite?.(loaded, effects, now);
        if (pending !== undefined) await pending;
        const written = await this.write(nextRecord(loaded.record, next, now), current, next, now, call, displaced);
        if (written !== undefined) {
          const { view, record } = written;
          const status = next.value as FlowView['status'];
          this.#deps.logger.debug('verikit.flow.changed', {
            flowId,
            kind: record.kind,
            status,
            version: record.version,
          });
          this.#deps.telemetry.changed(record.kind, current.value as string, status);
          await this.publish(record.id, view);
          const committed = { record, flow: loaded.flow, snapshot: next };
          this.#recent.remember(flowId, committed);
          return { view, effects, loaded: committed, changed: true };
        }
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
    const written = await this.write(nextRecord(loaded.record, ticked, now), loaded.snapshot, ticked, now, call);
    if (written === undefined) return undefined;
    await this.publish(written.record.id, written.view);
    return { record: written.record, flow: loaded.flow, snapshot: ticked };
  }

  /**
   * Compare-and-sets `record` over the version before it (0: a new flow), then writes the route keys
   * the change adds. Returns the view to publish and the record as written (with the events for the
   * app's webhook, when one is set); undefined when the stored version had moved on. With a bus that
   * offers publishing writes, a change that adds no route key is published to the other instances by the write.
   * The flows the route keys pointed to before, for a definition that `supersedes`, go to `displaced` (the caller
   * ends them once out of this flow's queue), or, without it, are ended here.
   */
  async write(
    given: FlowRecord,
    previous: AnyMachineSnapshot | undefined,
    next: AnyMachineSnapshot,
    now: number,
    call?: StoreCall,
    displaced?: Displaced[],
  ): Promise<{ view: LazyView; record: FlowRecord } | undefined> {
    const { records, store, env, webhook } = this.#deps;
    const events = lifecycleEventsOf(previous, next, given);
    // The webhook's events are written with the change itself; their ids are known to every instance first.
    const { record, ids } = webhook?.stage(given, events, now) ?? { record: given, ids: [] };
    const ttl = webhook ? webhook.ttlFor(record, records.ttlFor(next, now), now) : records.ttlFor(next, now);
    const { definition } = records.flow(record.kind);
    const routes = definition.routes?.(previous, next, env) ?? [];
    const view = lazyView(next, record, now);
    if (ids.length > 0) await webhook!.announce(ids, now);
    // Refused: the webhook's ids stay. Another instance may have committed the same event (same version, same type).
    // One command writes and publishes, unless route keys must be written between the two (a subscriber that
    // sees the change must find them).
    if (this.#publishing !== undefined && routes.length === 0) {
      if (!(await this.#publishing.compareAndSetAndPublish(record, record.version - 1, ttl, view, call)))
        return undefined;
      this.#publishedWithWrite.add(view);
    } else {
      if (!(await store.compareAndSetFlow(record, record.version - 1, ttl, call))) return undefined;
      const ended = displaced ?? [];
      for (const key of routes) {
        const before = definition.supersedes ? await store.getRoute(key, call) : undefined;
        await store.setRoute(key, record.id, ttl, call);
        if (before !== undefined && before !== record.id) ended.push({ flowId: before, key });
      }
      if (displaced === undefined) for (const older of ended) await this.#supersede(older, call);
    }
    // Committed: the lifecycle events it caused go to this engine's listeners, once, and to the webhook.
    this.#deps.events.emit(events);
    if (ids.length > 0) void webhook!.deliver();
    return { view, record };
  }

  /**
   * Ends the flow a route key pointed to before a newer flow took it (`superseded`, decision 1280), unless it took
   * the key back since (two flows taking it at once: the one that holds it stays). A flow that moved on (already
   * ended, gone) changes nothing; a failure is logged: the newer flow stands, the older one still ends when its
   * code expires.
   */
  async #supersede({ flowId, key }: Displaced, call: StoreCall | undefined): Promise<void> {
    try {
      if ((await this.#deps.store.getRoute(key, call)) === flowId) return;
      await this.commit(
        flowId,
        (_loaded, now) => ({ event: { type: 'superseded', now }, onRefused: acceptSilently }),
        undefined,
        call,
      );
    } catch (error) {
      this.#deps.logger.warn('verikit.supersede.failed', { flowId, error: errorCode(error) });
    }
  }

  /**
   * Writes route keys to a flow that a committed change learned of outside its snapshot (the ids a
   * send returned, which its delivery receipts name), living as long as the flow's record. A failing
   * write is logged: the flow stands, only its receipts will find no flow.
   */
  async addRoutes(
    flowId: string,
    keys: readonly string[],
    snapshot: AnyMachineSnapshot,
    call?: StoreCall,
  ): Promise<void> {
    const { records, store, clock, logger } = this.#deps;
    try {
      const ttl = records.ttlFor(snapshot, clock.now());
      for (const key of keys) await store.setRoute(key, flowId, ttl, call);
    } catch (error) {
      logger.warn('verikit.route.failed', { flowId, error: errorCode(error) });
    }
  }

  /**
   * Hands a committed view of flow `flowId` to the change bus; a failing bus is logged, never the caller's error. A
   * view the write published already goes to this instance's listeners only, and is made only if it has some; a bus
   * that says nobody follows the flow gets nothing.
   */
  async publish(flowId: string, view: LazyView): Promise<void> {
    const { bus } = this.#deps;
    try {
      if (this.#publishedWithWrite.has(view)) this.#publishing!.deliverLocally(flowId, view);
      else if (bus.follows?.(flowId) !== false) await bus.publish(view());
    } catch (error) {
      this.#deps.logger.warn('verikit.publish.failed', { flowId, error: errorCode(error) });
    }
  }
}
