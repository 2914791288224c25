import { createHmac } from 'node:crypto';
import type { Logger } from '@verikit/provider';
import type { FlowEvent } from '../flows/view.js';
import { errorCode } from '../logging/error-code.js';
import type { EventOutbox, TakenEvent } from '../store/event-outbox.js';
import type { FlowRecord, FlowStore } from '../store/flow-store.js';
import type { Clock } from '../time/clock.js';
import { pollWeakly } from '../time/poll-weakly.js';
import type { EventWebhookFailure, EventWebhookGiveUpReason, EventWebhookSettings } from './event-webhook-options.js';

/** Events one pass takes from the outbox at a time, and sends at once. */
const batchSize = 50;
/** Batches one pass takes before it yields to the next poll. */
const maxBatches = 20;
/** The longest wait between two attempts. */
const maxRetryDelayMs = 60 * 60_000;

/**
 * The `webhook-signature` of one attempt (standardwebhooks.com): `v1,` and the base64 HMAC-SHA256, under
 * the secret's key, of `<webhook-id>.<webhook-timestamp>.<body>`.
 */
export function signWebhook(key: Buffer, id: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** The body of one POST: Standard Webhooks' `{ type, timestamp, data }`, `data` the event's own fields only. */
function payloadOf(event: FlowEvent): string {
  const { id, type, flowId, kind, status, version, at, errorCode: code, delivery } = event;
  const data = { id, type, flowId, kind, status, version, at, errorCode: code, delivery };
  return JSON.stringify({ type: `flow.${type}`, timestamp: new Date(at).toISOString(), data });
}

/** The flow id and version an event id (`<flowId>:<version>:<type>`) names; undefined when it is not one. */
function partsOf(eventId: string): { flowId: string; version: number } | undefined {
  const typeAt = eventId.lastIndexOf(':');
  const versionAt = eventId.lastIndexOf(':', typeAt - 1);
  const version = Number(eventId.slice(versionAt + 1, typeAt));
  if (versionAt <= 0 || !Number.isSafeInteger(version)) return undefined;
  return { flowId: eventId.slice(0, versionAt), version };
}

/**
 * Delivers lifecycle events to the app's webhook, signed with Standard Webhooks, at least once and through
 * the store (docs/decisions/1140-event-webhooks-outbox-in-the-flow-record.md):
 *
 * - a commit writes the events it caused into the flow's record (`stage`), so they are stored exactly when
 *   the change is; their ids are added to the store's outbox index first (`announce`), so a process that
 *   dies after the commit leaves them to the others;
 * - a pass (`deliver`: after each commit, every `pollMs`, or `verikit.deliverEvents()`) takes the due ids
 *   under a lease, reads each event from its flow's record and POSTs it; a 2xx removes it, a failure makes it
 *   due again later, a 410, `maxAttempts` or `maxAgeMs` gives it up.
 */
export class EventWebhook {
  readonly #settings: EventWebhookSettings;
  readonly #store: FlowStore;
  readonly #outbox: EventOutbox;
  readonly #clock: Clock;
  readonly #logger: Logger;
  #running: Promise<number> | undefined;
  #again = false;
  #closed = false;
  readonly #stopPoll: () => void;

  constructor(
    settings: EventWebhookSettings,
    deps: { store: FlowStore; outbox: EventOutbox; clock: Clock; logger: Logger },
  ) {
    this.#settings = settings;
    this.#store = deps.store;
    this.#outbox = deps.outbox;
    this.#clock = deps.clock;
    this.#logger = deps.logger;
    this.#stopPoll = pollWeakly(this, settings.pollMs, (webhook) => void webhook.deliver());
  }

  /** Stops the poll; a pass asked for afterwards does nothing. Resolves once the pass running now has ended. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#stopPoll();
    await this.#running;
  }

  /**
   * The record to commit: its outbox with the events of this change the webhook sends added, and those
   * older than `maxAgeMs` dropped. `ids`: the events added.
   */
  stage(record: FlowRecord, events: readonly FlowEvent[], now: number): { record: FlowRecord; ids: string[] } {
    const fresh = events.filter((event) => this.#settings.types.has(event.type));
    const before = record.outbox ?? [];
    const kept = before.filter((event) => now - event.at <= this.#settings.maxAgeMs);
    if (fresh.length === 0 && kept.length === before.length) return { record, ids: [] };
    const { outbox: _, ...rest } = record;
    const outbox = [...kept, ...fresh];
    return { record: outbox.length === 0 ? rest : { ...rest, outbox }, ids: fresh.map((event) => event.id) };
  }

  /** The record's time to live: long enough for its oldest event to be tried until `maxAgeMs`. */
  ttlFor(record: FlowRecord, ttl: number, now: number): number {
    const oldest = record.outbox?.[0]?.at;
    return oldest === undefined ? ttl : Math.max(ttl, oldest + this.#settings.maxAgeMs - now);
  }

  /** Before the commit: the ids become known to every instance, due now. */
  announce(ids: readonly string[], now: number): Promise<void> {
    return this.#outbox.add(ids, now);
  }

  /**
   * One pass over the events due, started now or, when one is running, once it ends. Resolves with the number
   * of events delivered; never rejects (a failing store is logged).
   */
  deliver(): Promise<number> {
    if (this.#closed) return Promise.resolve(0);
    if (this.#running !== undefined) {
      this.#again = true;
      return this.#running;
    }
    const running = (async () => {
      let delivered = 0;
      try {
        do {
          this.#again = false;
          delivered += await this.#pass();
        } while (this.#again && !this.#closed);
      } catch (error) {
        this.#logger.warn('verikit.event-webhook.pass-failed', { error: errorCode(error) });
      } finally {
        this.#running = undefined;
      }
      return delivered;
    })();
    this.#running = running;
    return running;
  }

  async #pass(): Promise<number> {
    let delivered = 0;
    for (let batch = 0; batch < maxBatches; batch += 1) {
      const now = this.#clock.now();
      const taken = await this.#outbox.take(now, this.#settings.leaseMs, batchSize);
      const results = await Promise.all(
        taken.map((entry) =>
          this.#deliverOne(entry, now).catch((error: unknown) => {
            this.#logger.warn('verikit.event-webhook.delivery-failed', { eventId: entry.id, error: errorCode(error) });
            return false;
          }),
        ),
      );
      delivered += results.filter(Boolean).length;
      if (taken.length < batchSize) break;
    }
    return delivered;
  }

  async #deliverOne(entry: TakenEvent, now: number): Promise<boolean> {
    const { maxAttempts, maxAgeMs } = this.#settings;
    const parts = partsOf(entry.id);
    const record = parts === undefined ? undefined : await this.#store.getFlow(parts.flowId);
    const event = record?.outbox?.find((stored) => stored.id === entry.id);
    if (event === undefined) {
      // Not (yet) committed: a commit in flight, or one another instance won. Gone for good once the flow
      // has that version without it, or after every attempt.
      if (
        parts === undefined ||
        (record !== undefined && record.version >= parts.version) ||
        entry.attempt >= maxAttempts
      )
        await this.#outbox.remove([entry.id]);
      else await this.#outbox.retry(entry.id, now + this.#delay(entry.attempt));
      return false;
    }
    if (now - event.at > maxAgeMs) return this.#giveUp(event, entry.attempt - 1, 'age', undefined);
    const status = await this.#post(event);
    if (status !== undefined && status >= 200 && status < 300) {
      await this.#outbox.remove([entry.id]);
      return true;
    }
    this.#logger.debug('verikit.event-webhook.attempt-failed', { eventId: entry.id, attempt: entry.attempt, status });
    if (status === 410) return this.#giveUp(event, entry.attempt, 'gone', status);
    if (entry.attempt >= maxAttempts) return this.#giveUp(event, entry.attempt, 'attempts', status);
    await this.#outbox.retry(entry.id, now + this.#delay(entry.attempt));
    return false;
  }

  /** POSTs one event, signed afresh; the answer's status, or undefined when none came in time. Never follows a redirect. */
  async #post(event: FlowEvent): Promise<number | undefined> {
    const body = payloadOf(event);
    // The receiver checks this against its own clock: the wall clock, not the engine's.
    const timestamp = Math.floor(Date.now() / 1000);
    try {
      const response = await (this.#settings.fetch ?? fetch)(this.#settings.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'verikit-events',
          'webhook-id': event.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signWebhook(this.#settings.key, event.id, timestamp, body),
        },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.#settings.timeoutMs),
      });
      // The answer's body is never read: only its status counts.
      await response.body?.cancel().catch(() => {});
      return response.status;
    } catch {
      return undefined;
    }
  }

  /** The wait after failed attempt `attempt`: `retryDelayMs` × 4^(attempt − 1), at most an hour, plus up to 10 %. */
  #delay(attempt: number): number {
    const base = Math.min(this.#settings.retryDelayMs * 4 ** Math.max(0, attempt - 1), maxRetryDelayMs);
    return Math.round(base * (1 + Math.random() * 0.1));
  }

  async #giveUp(
    event: FlowEvent,
    attempts: number,
    reason: EventWebhookGiveUpReason,
    lastStatus: number | undefined,
  ): Promise<false> {
    await this.#outbox.remove([event.id]);
    const failure: EventWebhookFailure = {
      eventId: event.id,
      flowId: event.flowId,
      type: event.type,
      reason,
      attempts,
      ...(lastStatus === undefined ? {} : { lastStatus }),
    };
    this.#logger.warn('verikit.event-webhook.given-up', { ...failure });
    try {
      this.#settings.onGiveUp?.(failure);
    } catch (error) {
      this.#logger.warn('verikit.event-webhook.listener-failed', { eventId: event.id, error: errorCode(error) });
    }
    return false;
  }
}
