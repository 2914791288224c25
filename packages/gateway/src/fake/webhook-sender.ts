import { randomUUID } from 'node:crypto';
import { FakeInboxLog, type FakeInboxWebhook, type FakeInboxWebhookAttempt } from '@verikit/provider-utils/fake';
import { Webhook } from 'standardwebhooks';
import { defaultMaxRetryAfterMs, nextRetryDelayMs, retryAfterMs } from './retry-after.js';
import type { GatewayFakeEvent } from './gateway-fake-options.js';

/** The outcome of delivering one webhook, all attempts included. */
export interface WebhookDelivery {
  /** The `webhook-id`: the same for every attempt, so the receiver de-duplicates. */
  readonly id: string;
  /** The event sent, as JSON. */
  readonly payload: Readonly<Record<string, unknown>>;
  /** Attempts made so far. */
  readonly attempts: number;
  /** True once an attempt got a 2xx answer. */
  readonly delivered: boolean;
  /** The HTTP status of the last attempt, when it got one. */
  readonly lastStatus?: number;
}

/** Options of {@link WebhookSender}. */
export interface WebhookSenderOptions {
  readonly url: string | undefined;
  readonly secret: string;
  /** The wait before each retry; attempts = length + 1. */
  readonly retryDelaysMs: readonly number[];
  /** The longest wait a receiver's `Retry-After` may impose (0: ignore `Retry-After`). Default 60,000. */
  readonly maxRetryAfterMs?: number;
  readonly timeoutMs: number;
  readonly emit: (event: GatewayFakeEvent) => void;
  /** Called when a webhook starts, after each attempt and when it ends: the inbox page follows it. */
  readonly onChange?: () => void;
}

/** A webhook as the inbox shows it, updated in place as attempts are made. */
interface LoggedWebhook {
  readonly id: string;
  readonly url?: string;
  readonly payload: Readonly<Record<string, unknown>>;
  readonly attempts: FakeInboxWebhookAttempt[];
  outcome: FakeInboxWebhook['outcome'];
}

/**
 * Sends webhooks signed with Standard Webhooks (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`). A non-2xx answer or a network error is retried after each of
 * `retryDelaysMs`, or later when the answer's `Retry-After` asks for more (up to
 * `maxRetryAfterMs`): a receiver answering `409 in-progress` knows when its claim on the message
 * lapses. Every attempt keeps the id and is signed afresh with its own timestamp.
 */
export class WebhookSender {
  readonly #options: WebhookSenderOptions;
  readonly #signer: Webhook;
  readonly #stopped = new AbortController();
  readonly #pending = new Set<Promise<WebhookDelivery>>();
  /**
   * Wakes each retry wait in progress, for `close`. Kept here rather than as an abort listener per wait on the
   * long-lived stop signal, which warns (MaxListenersExceededWarning) past 10 webhooks waiting at once.
   */
  readonly #waiting = new Set<() => void>();
  readonly deliveries: WebhookDelivery[] = [];
  readonly #log: FakeInboxLog<LoggedWebhook>;

  constructor(options: WebhookSenderOptions) {
    this.#options = options;
    this.#log = new FakeInboxLog({ ...(options.onChange === undefined ? {} : { onChange: options.onChange }) });
    this.#signer = new Webhook(options.secret);
  }

  /** Delivers `payload` (with retries). Resolves when delivered or given up; never rejects. */
  send(payload: Record<string, unknown>): Promise<WebhookDelivery> {
    const promise = this.#deliver(`msg_${randomUUID().replaceAll('-', '')}`, payload);
    this.#pending.add(promise);
    void promise.finally(() => this.#pending.delete(promise));
    return promise;
  }

  /** Every webhook sent or being sent, newest first, with its attempts: for the inbox page. */
  get log(): readonly FakeInboxWebhook[] {
    return this.#log.entries;
  }

  async #deliver(id: string, payload: Record<string, unknown>): Promise<WebhookDelivery> {
    const url = this.#options.url;
    if (url === undefined) {
      this.#log.add({ id, payload, attempts: [], outcome: 'not-sent' });
      const delivery = { id, payload, attempts: 0, delivered: false };
      this.deliveries.push(delivery);
      return delivery;
    }
    const logged = this.#log.add({ id, url, payload, attempts: [], outcome: 'sending' });
    const body = JSON.stringify(payload);
    const maxAttempts = this.#options.retryDelaysMs.length + 1;
    let lastStatus: number | undefined;
    let attempt = 0;
    while (attempt < maxAttempts && !this.#stopped.signal.aborted) {
      attempt += 1;
      const now = new Date();
      const headers = {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': this.#signer.sign(id, now, body),
        'user-agent': 'verikit-sandbox',
      };
      let error: string | undefined;
      let retryAfter: number | undefined;
      lastStatus = undefined;
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers,
          body,
          redirect: 'manual',
          signal: AbortSignal.any([AbortSignal.timeout(this.#options.timeoutMs), this.#stopped.signal]),
        });
        lastStatus = response.status;
        retryAfter = retryAfterMs(response.headers.get('retry-after'), Date.now());
        await response.arrayBuffer().catch(() => undefined);
      } catch (cause) {
        error = cause instanceof Error && cause.name === 'TimeoutError' ? 'timeout' : 'network error';
      }
      const delivered = lastStatus !== undefined && lastStatus >= 200 && lastStatus < 300;
      const willRetry = !delivered && attempt < maxAttempts && !this.#stopped.signal.aborted;
      const retryInMs = willRetry
        ? nextRetryDelayMs(
            this.#options.retryDelaysMs[attempt - 1]!,
            retryAfter,
            this.#options.maxRetryAfterMs ?? defaultMaxRetryAfterMs,
          )
        : undefined;
      logged.attempts.push({
        attempt,
        at: now.getTime(),
        ...(lastStatus === undefined ? {} : { status: lastStatus }),
        ...(error === undefined ? {} : { error }),
        ...(retryInMs === undefined ? {} : { retryInMs }),
      });
      if (!willRetry) logged.outcome = delivered ? 'delivered' : 'failed';
      this.#log.changed();
      this.#options.emit({
        type: 'webhook',
        id,
        url,
        attempt,
        ...(lastStatus === undefined ? {} : { status: lastStatus }),
        ...(error === undefined ? {} : { error }),
        delivered,
        willRetry,
        ...(retryInMs === undefined ? {} : { retryInMs }),
      });
      if (delivered) {
        const delivery = { id, payload, attempts: attempt, delivered: true, lastStatus: lastStatus! };
        this.deliveries.push(delivery);
        return delivery;
      }
      if (retryInMs !== undefined) await this.#sleep(retryInMs);
    }
    if (logged.outcome === 'sending') {
      logged.outcome = 'failed';
      this.#log.changed();
    }
    const delivery = {
      id,
      payload,
      attempts: attempt,
      delivered: false,
      ...(lastStatus === undefined ? {} : { lastStatus }),
    };
    this.deliveries.push(delivery);
    return delivery;
  }

  /** Waits `ms`, or less when the sender closes. */
  #sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.#stopped.signal.aborted) return resolve();
      const wake = () => {
        clearTimeout(timer);
        this.#waiting.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.#waiting.add(wake);
    });
  }

  /** Stops retrying and waits for attempts in flight. */
  async close(): Promise<void> {
    this.#stopped.abort();
    for (const wake of [...this.#waiting]) wake();
    await Promise.all([...this.#pending]);
  }
}
