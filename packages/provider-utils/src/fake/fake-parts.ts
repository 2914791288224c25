import type { Hono } from 'hono';
import { clampLatency, type FakeLatency } from './fake-latency.js';
import { FakeOutbox, type FakeMessage } from './fake-outbox.js';

/** A request a fake answered, as its `onRequest` listeners hear it: never a body, never the query string. */
export interface FakeRequest {
  /** The HTTP method. */
  readonly method: string;
  /** The path without the query string, which could carry a key. */
  readonly path: string;
  /** The status the fake answered with. */
  readonly status: number;
}

/** What {@link fakeParts} builds from a fake's options. */
export interface FakePartsOptions {
  /** Latency added to every answer, in ms. Default 0. */
  readonly latencyMs?: number;
  /** Latency of the magic "slow" numbers, in ms. Default 3000. */
  readonly slowMs?: number;
  /** Messages the outbox keeps. Default 1,000. */
  readonly outboxLimit?: number;
}

/** The parts every provider fake starts with: what its routes read and what {@link runningFake} is built from. */
export interface FakeParts<Heard = FakeRequest, Message extends FakeMessage = FakeMessage> {
  /** What the fake delivered. */
  readonly outbox: FakeOutbox<Message>;
  /** The latency its routes wait before answering; `setLatency` changes it. */
  readonly latency: FakeLatency;
  /** How long a magic "slow" number waits, in ms. */
  readonly slowMs: number;
  /** Who hears of each answered request (`onRequest`). */
  readonly listeners: Set<(heard: Heard) => void>;
  /** Tells every listener; a listener that throws is not the fake's failure, and the others still hear. */
  emit(heard: Heard): void;
}

/** A fake's outbox, latency and request listeners, from its options (latencies clamped to 0–60 s). */
export function fakeParts<Heard = FakeRequest, Message extends FakeMessage = FakeMessage>(
  options: FakePartsOptions = {},
): FakeParts<Heard, Message> {
  const listeners = new Set<(heard: Heard) => void>();
  return {
    outbox: new FakeOutbox<Message>(options.outboxLimit),
    latency: { ms: clampLatency(options.latencyMs ?? 0) },
    slowMs: clampLatency(options.slowMs ?? 3000),
    listeners,
    emit(heard) {
      for (const listener of listeners) {
        try {
          listener(heard);
        } catch {
          // A listener's failure is not the fake's.
        }
      }
    },
  };
}

/**
 * Mounts what every provider fake's app serves besides the vendor's routes: the request log (each answered request's
 * method, path and status told to `parts`' listeners) and `GET /__fake/outbox`. Mount it before the routes, so that
 * the log hears them all, refusals and 404s included.
 */
export function mountFakeBasics(app: Hono, parts: FakeParts<FakeRequest, FakeMessage>): void {
  app.use('*', async (c, next) => {
    await next();
    parts.emit({ method: c.req.method, path: new URL(c.req.url).pathname, status: c.res.status });
  });
  app.get('/__fake/outbox', (c) => c.json(parts.outbox.messages));
}
