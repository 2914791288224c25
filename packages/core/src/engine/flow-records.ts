import type { AnyMachineSnapshot, AnyStateMachine } from 'xstate';
import { FlowNotFoundError } from '../errors/flow-not-found-error.js';
import { RecordSchemaError } from '../errors/record-schema-error.js';
import type { FlowDefinition } from '../flows/flow-definition.js';
import { flowDefinitions } from '../flows/flow-definitions.js';
import type { FlowPolicies } from '../flows/policies.js';
import {
  createPureTransitions,
  type PureStep,
  type PureTransitions,
} from '../flows/fast-transitions/pure-transition.js';
import type { FlowContextBase, FlowKind } from '../flows/flow-context.js';
import { isTickDue } from '../flows/machine-base.js';
import { isDeliveryEvent, withDelivery } from '../inbound/delivery-receipts.js';
import { recordSchemaVersion, type FlowRecord, type FlowStore, type StoreCall } from '../store/flow-store.js';

/** A kind of flow as the engine runs it: its definition, its machine for the engine's policies, its transitions. */
export interface CompiledFlow {
  readonly definition: FlowDefinition;
  readonly machine: AnyStateMachine;
  readonly transitions: PureTransitions;
}

/** A stored flow with its machine and restored snapshot. */
export interface Loaded {
  readonly record: FlowRecord;
  readonly flow: CompiledFlow;
  readonly snapshot: AnyMachineSnapshot;
}

/**
 * Turns stored records into machine snapshots and back: which machine a record belongs to, the time
 * a snapshot has to live, and the `tick` that applies a passed deadline on read.
 */
export class FlowRecords {
  readonly #flows: ReadonlyMap<string, CompiledFlow>;
  readonly #store: FlowStore;
  readonly #policies: Readonly<FlowPolicies>;

  constructor(store: FlowStore, policies: Readonly<FlowPolicies>) {
    this.#store = store;
    this.#policies = policies;
    this.#flows = new Map(
      Object.values(flowDefinitions).map((definition) => {
        const machine = definition.createMachine(policies);
        return [definition.kind, { definition, machine, transitions: createPureTransitions(machine) }];
      }),
    );
  }

  /** The compiled flow of a kind the input schema accepted. */
  flow(kind: FlowKind): CompiledFlow {
    return this.#flows.get(kind)!;
  }

  restore(record: FlowRecord): Loaded {
    if (record.schemaVersion !== recordSchemaVersion) {
      throw new RecordSchemaError(
        `flow record has schema version ${String(record.schemaVersion)}; this release reads ${recordSchemaVersion}`,
      );
    }
    const flow = this.#flows.get(record.kind);
    if (flow === undefined) throw new RecordSchemaError('flow record has an unknown kind');
    try {
      const snapshot = flow.transitions.resolve(record.value, record.context);
      return { record, flow, snapshot };
    } catch (error) {
      throw new RecordSchemaError('flow record does not match the flow machine', { cause: error });
    }
  }

  async load(flowId: string, call?: StoreCall): Promise<Loaded> {
    const record = await this.#store.getFlow(flowId, call);
    if (record === undefined) throw new FlowNotFoundError(flowId);
    return this.restore(record);
  }

  /** The snapshot as of `now`: a passed expiry or effect deadline applied, whether or not a timer ran. */
  ticked(loaded: Loaded, now: number): AnyMachineSnapshot {
    const { snapshot, flow } = loaded;
    if (snapshot.status === 'done' || !isTickDue(snapshot.context as FlowContextBase, now)) return snapshot;
    return flow.transitions.next(snapshot, { type: 'tick', now })[0];
  }

  /**
   * The next snapshot and its actions; a flow in a final state takes no event (XState would still apply
   * root-level transitions). A delivery receipt is no machine event: it is recorded in the context, in
   * the same state, for every kind of flow alike.
   */
  next(loaded: Loaded, snapshot: AnyMachineSnapshot, event: unknown): PureStep {
    if (snapshot.status === 'done') return [snapshot, []];
    if (isDeliveryEvent(event)) return [withDelivery(loaded.flow.machine, snapshot, event), []];
    return loaded.flow.transitions.next(snapshot, event);
  }

  /** How long the record must live: past every deadline it holds, plus the retention. */
  ttlFor(snapshot: AnyMachineSnapshot, now: number): number {
    // Keyv reads a TTL of 0 as "keep forever": the shortest TTL is 1 ms.
    if (snapshot.status === 'done') return Math.max(1, this.#policies.retentionMs);
    const context = snapshot.context as FlowContextBase;
    const until = Math.max(
      now,
      context.expiresAt ?? now,
      context.effect?.deadline ?? now,
      context.resendAvailableAt ?? now,
    );
    return Math.max(1, until - now + this.#policies.retentionMs);
  }
}

/**
 * A `Map` of at most `capacity` entries that forgets the least recently remembered first: what an engine keeps of
 * the flows it used last (the latest record of each, decision 1430), and the Redis change bus of the flows it found
 * followed (decision 1400). A `Map` keeps insertion order, which is all such a list needs.
 */
export class RecentlyUsed<V> {
  readonly #capacity: number;
  readonly #entries = new Map<string, V>();

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get(key: string): V | undefined {
    return this.#entries.get(key);
  }

  /** Remembers `value` under `key` as the most recent entry; past the capacity, the oldest goes. */
  remember(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#capacity) this.#entries.delete(this.#entries.keys().next().value!);
  }

  forget(key: string): void {
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}
