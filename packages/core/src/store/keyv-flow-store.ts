import {
  claimRecordKey,
  deliveryRouteKey,
  flowRecordKey,
  limitRecordKey,
  phoneNumberKeyPart,
  routeRecordKey,
  sendsLimitKey,
} from '../keys/store-keys.js';
import Keyv from 'keyv';
import { StoreError } from '../errors/store-error.js';
import { VerikitError } from '@verikit/provider';
import type { FlowRecord, FlowStore, LimitResult } from './flow-store.js';
import { ExpiringMap, readLive, type MapSection } from './compact-memory/expiring-map.js';
import { memoryEventOutbox, type EventOutbox } from './event-outbox.js';
import { memoryFlowTimers, type FlowTimers } from './flow-timers.js';
import { KeyLock } from './key-lock.js';
import { safeStoreCause } from './safe-store-cause.js';
import type { Clock } from '../time/clock.js';

/** Where {@link createMemoryKeyv}'s Keyv keeps a key: its namespace, then the key. */
const memoryKeyPrefix = 'verikit:';

/**
 * The sections of the embedded map: the three kinds of key every phone flow writes, each kept without its
 * prefix, flow records in their compact form (docs/decisions/1350-compact-memory-records.md).
 */
export const memorySections: readonly MapSection[] = [
  { prefix: `${memoryKeyPrefix}${flowRecordKey('')}`, records: true },
  { prefix: `${memoryKeyPrefix}${routeRecordKey(deliveryRouteKey(''))}`, hex: true },
  { prefix: `${memoryKeyPrefix}${limitRecordKey(sendsLimitKey(phoneNumberKeyPart('')))}`, hex: true },
];

/**
 * A Keyv whose values are stored as JSON strings in a `Map`: the embedded default. Keyv's default
 * serializer costs about 4x the memory per record (docs/decisions/0002-json-serializer.md). The map
 * drops expired records on an unref'd timer, read or not (docs/decisions/0020-expiring-memory-store.md),
 * and keeps each value in a compact form, giving Keyv back its own strings
 * (docs/decisions/1350-compact-memory-records.md): `keyv.store` is that `ExpiringMap`.
 *
 * `clock` is what the records expire by (default the system clock). A `KeyvFlowStore` over this Keyv stamps and
 * checks every expiry with it (flows, routes, limits, and the claims an inbound event's delivery holds), so a test
 * moves it to let a claim lapse instead of waiting out its lease. Keyv's own `get` and `set` keep `Date.now()`: read
 * and write such a Keyv through the store.
 */
export function createMemoryKeyv(options: { readonly clock?: Clock } = {}): Keyv {
  const clock = options.clock;
  const keyv = new Keyv({
    store: new ExpiringMap({ sections: memorySections, ...(clock === undefined ? {} : { now: () => clock.now() }) }),
    serialize: JSON.stringify,
    deserialize: JSON.parse,
    throwOnErrors: true,
    namespace: memoryKeyPrefix.slice(0, -1),
  });
  memoryKeyvs.add(keyv);
  return keyv;
}

/** The Keyvs {@link createMemoryKeyv} made: flow records are read and written straight in their map. */
const memoryKeyvs = new WeakSet<Keyv>();

async function guarded<T>(operation: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (VerikitError.isInstance(error)) throw error;
    throw new StoreError(`the flow store failed to ${operation}`, { cause: safeStoreCause(error) });
  }
}

/** A fixed window as stored: the units used, and when the window ends. */
interface LimitWindow {
  readonly used: number;
  readonly resetAt: number;
}

/** One more unit of the window `current` (a new one when it ended), or a refusal when it is full. */
function nextWindow(current: LimitWindow | undefined, limit: number, windowMs: number, now: number): LimitResult {
  const window = current && current.resetAt > now ? current : { used: 0, resetAt: now + windowMs };
  if (window.used >= limit) return { allowed: false, used: window.used, resetAt: window.resetAt };
  return { allowed: true, used: window.used + 1, resetAt: window.resetAt };
}

/** A key as the embedded Keyv stores it: its namespace, then the key. */
function memoryKey(key: string): string {
  return `${memoryKeyPrefix}${key}`;
}

/** One lock per Keyv instance, so that every store over the same Keyv in this process shares it. */
const locks = new WeakMap<Keyv, KeyLock>();

function lockFor(keyv: Keyv): KeyLock {
  let lock = locks.get(keyv);
  if (!lock) {
    lock = new KeyLock();
    locks.set(keyv, lock);
  }
  return lock;
}

/** One event outbox per Keyv instance, shared by the engines on it in this process. */
const outboxes = new WeakMap<Keyv, EventOutbox>();

/** One set of flow timers per Keyv instance, shared by the engines on it in this process. */
const timers = new WeakMap<Keyv, FlowTimers>();

/**
 * A {@link FlowStore} over any Keyv. Compare-and-set is a per-key lock in this process, shared by
 * every store over the same Keyv instance: correct for one process on any Keyv adapter. For many
 * processes use the Redis store, whose compare-and-set runs in Redis.
 */
export class KeyvFlowStore implements FlowStore {
  /** The Keyv the store writes to: reach the embedded map (`keyv.store`) or close an adapter through it. */
  readonly keyv: Keyv;
  readonly #lock: KeyLock;
  /**
   * The map under a Keyv made by {@link createMemoryKeyv}. Flow records are then read and
   * compare-and-set in it directly, in its compact form: the check and the write happen in one
   * synchronous step, so they need no lock, and the version is read without parsing the record
   * (docs/decisions/0500-flow-records-read-from-the-memory-map.md, 1350-compact-memory-records.md).
   */
  readonly #map: ExpiringMap | undefined;

  constructor(keyv: Keyv = createMemoryKeyv()) {
    keyv.throwOnErrors = true;
    this.keyv = keyv;
    this.#lock = lockFor(keyv);
    this.#map = memoryKeyvs.has(keyv) ? (keyv.store as ExpiringMap) : undefined;
  }

  getFlow(id: string): Promise<FlowRecord | undefined> {
    const map = this.#map;
    if (map !== undefined) {
      return guarded('read a flow', async () => {
        const stored = map.readRecord(id);
        if (stored === undefined || !map.isPast(stored.expires)) return stored?.value as FlowRecord | undefined;
        map.deleteRecord(id);
        return undefined;
      });
    }
    return guarded('read a flow', () => this.keyv.get<FlowRecord>(flowRecordKey(id)));
  }

  compareAndSetFlow(record: FlowRecord, expectedVersion: number, ttlMs: number): Promise<boolean> {
    const map = this.#map;
    if (map !== undefined) {
      return guarded('write a flow', async () => {
        if (map.liveRecordVersion(record.id) !== expectedVersion) return false;
        map.writeRecord(record.id, record, ttlMs);
        return true;
      });
    }
    const key = flowRecordKey(record.id);
    return guarded('write a flow', () =>
      this.#lock.run(key, async () => {
        const current = await this.keyv.get<FlowRecord>(key);
        if ((current?.version ?? 0) !== expectedVersion) return false;
        await this.keyv.set(key, record, ttlMs);
        return true;
      }),
    );
  }

  getRoute(key: string): Promise<string | undefined> {
    const map = this.#map;
    if (map !== undefined) return guarded('read a route', async () => readLive(map, memoryKey(routeRecordKey(key))));
    return guarded('read a route', () => this.keyv.get<string>(routeRecordKey(key)));
  }

  setRoute(key: string, flowId: string, ttlMs: number): Promise<void> {
    const map = this.#map;
    if (map !== undefined) {
      return guarded('write a route', async () => map.write(memoryKey(routeRecordKey(key)), flowId, ttlMs));
    }
    return guarded('write a route', async () => {
      await this.keyv.set(routeRecordKey(key), flowId, ttlMs);
    });
  }

  claim(key: string, ttlMs: number): Promise<boolean> {
    const fullKey = claimRecordKey(key);
    const map = this.#map;
    // In the memory map the check and the write are one synchronous step: no lock needed.
    if (map !== undefined) {
      return guarded('claim a key', async () => {
        const key = memoryKey(fullKey);
        if (readLive(map, key) !== undefined) return false;
        map.write(key, 1, ttlMs);
        return true;
      });
    }
    return guarded('claim a key', () =>
      this.#lock.run(fullKey, async () => {
        if ((await this.keyv.get(fullKey)) !== undefined) return false;
        await this.keyv.set(fullKey, 1, ttlMs);
        return true;
      }),
    );
  }

  consume(key: string, limit: number, windowMs: number, now: number): Promise<LimitResult> {
    const fullKey = limitRecordKey(key);
    const map = this.#map;
    if (map !== undefined) {
      return guarded('update a limit', async () => {
        const key = memoryKey(fullKey);
        const result = nextWindow(readLive<LimitWindow>(map, key), limit, windowMs, now);
        if (result.allowed) map.write(key, { used: result.used, resetAt: result.resetAt }, result.resetAt - now);
        return result;
      });
    }
    return guarded('update a limit', () =>
      this.#lock.run(fullKey, async () => {
        const result = nextWindow(await this.keyv.get<LimitWindow>(fullKey), limit, windowMs, now);
        if (result.allowed)
          await this.keyv.set(fullKey, { used: result.used, resetAt: result.resetAt }, result.resetAt - now);
        return result;
      }),
    );
  }

  /** The webhook events' index, in this process's memory: shared by the engines on this Keyv here. */
  eventOutbox(): EventOutbox {
    let outbox = outboxes.get(this.keyv);
    if (outbox === undefined) {
      outbox = memoryEventOutbox();
      outboxes.set(this.keyv, outbox);
    }
    return outbox;
  }

  /** The flows' timers, in this process's memory: shared by the engines on this Keyv here. */
  flowTimers(): FlowTimers {
    let found = timers.get(this.keyv);
    if (found === undefined) {
      found = memoryFlowTimers();
      timers.set(this.keyv, found);
    }
    return found;
  }
}
