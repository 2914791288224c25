import type { FlowKind } from '../flows/flow-context.js';
import type { FlowEvent } from '../flows/view.js';
import type { EventOutbox } from './event-outbox.js';
import type { FlowTimers } from './flow-timers.js';
import type { SendGuardStore } from './send-guard-store.js';

/** The record format version written by this release. Older or newer records are refused with a `RecordSchemaError`. */
export const recordSchemaVersion = 1;

/** One flow as stored: the machine's state value and context, with a version for compare-and-set. */
export interface FlowRecord {
  /** The record format version (`recordSchemaVersion` when written): a reader refuses others. */
  readonly schemaVersion: number;
  /** The flow id. */
  readonly id: string;
  /** Which flow definition reads the record. */
  readonly kind: FlowKind;
  /** Starts at 1 and grows by one with every committed change. */
  readonly version: number;
  /** The machine's state value, serialized. */
  readonly value: string;
  /**
   * The machine's context (docs/flows.md, "What is stored"): the phone number in E.164, which a resend needs; a
   * BVN/NIN only masked, as a keyed hash and sealed; the identity OTP only as a keyed hash; never a submitted code.
   * The USSD OTP is the one secret kept, while the user must see it.
   */
  readonly context: Record<string, unknown>;
  /** When the flow started (engine clock). */
  readonly createdAt: number;
  /** When the flow last changed (engine clock). */
  readonly updatedAt: number;
  /**
   * The lifecycle events for the app's webhook that commits of this flow wrote, delivered or not, kept
   * until they are older than the webhook's `maxAgeMs` (docs/flows.md, "Events to your webhook"). Absent
   * without a webhook.
   */
  readonly outbox?: readonly FlowEvent[];
}

/** The result of taking one unit from a fixed-window limit. */
export interface LimitResult {
  /** True when a unit was taken; false when the window is full. */
  readonly allowed: boolean;
  /** How many units were used in the window, this one included when allowed. */
  readonly used: number;
  /** When the window ends (ms since epoch). */
  readonly resetAt: number;
}

/**
 * One engine call as a store sees it ({@link FlowStore.openCall}), handed back with each command the call makes.
 * Opaque to the engine.
 */
export interface StoreCall {
  /** The engine call has returned: commands it left running (a late provider answer's commit) are on their own. */
  end(): void;
}

/**
 * Where flows live. Every write of a flow is a compare-and-set on its version, so concurrent
 * engines (in one process or many) never lose an update. Implementations throw a `StoreError` when
 * the backing store fails: an outage is never reported as a missing flow.
 */
export interface FlowStore {
  /** Reads a flow; undefined when none has this id (or it expired). */
  getFlow(id: string, call?: StoreCall): Promise<FlowRecord | undefined>;
  /**
   * Writes `record` if the stored version equals `expectedVersion` (0: no record may exist).
   * Returns false, writing nothing, when it does not.
   */
  compareAndSetFlow(record: FlowRecord, expectedVersion: number, ttlMs: number, call?: StoreCall): Promise<boolean>;
  /** Reads a secondary key, such as the active USSD flow of a phone number. */
  getRoute(key: string, call?: StoreCall): Promise<string | undefined>;
  /** Writes a secondary key pointing at a flow, living `ttlMs`. */
  setRoute(key: string, flowId: string, ttlMs: number, call?: StoreCall): Promise<void>;
  /** Claims `key` once: true the first time, false while the claim lives (webhook ids). */
  claim(key: string, ttlMs: number, call?: StoreCall): Promise<boolean>;
  /** Takes one unit of a fixed-window limit of `limit` units per `windowMs`. Takes nothing when refused. */
  consume(key: string, limit: number, windowMs: number, now: number, call?: StoreCall): Promise<LimitResult>;
  /**
   * Where the send guard counts when its options name no store: a store shared by many instances
   * offers counts shared the same way (Redis). Absent: the guard counts in this process's memory.
   */
  sendGuardStore?(): SendGuardStore;
  /**
   * The index of events waiting for the app's webhook, shared by every instance on this store (Redis).
   * Absent: an index in this process's memory.
   */
  eventOutbox?(): EventOutbox;
  /**
   * The flows' timers (escalations, fallbacks after a receipt), shared by every instance on this store (Redis), so
   * whichever instance is alive carries each out (docs/plans.md). Absent: timers in this process's memory.
   */
  flowTimers?(): FlowTimers;
  /**
   * Opens one engine call (`start`, `send`, `get`, `receive`, …): the engine passes what this returns with every
   * command of the call, the send guard's counts included, so the store can bound them together (the Redis store:
   * `commandTimeoutMs` of Redis time for all, so a call fails within that time however many commands it makes).
   * Absent: each command is on its own.
   */
  openCall?(): StoreCall;
}
