import { Hono, type NotFoundHandler } from 'hono';
import { clampLatency, type FakeLatency } from './fake-latency.js';
import { FakeOutbox, type FakeMessage } from './fake-outbox.js';
import type { FakeInboxSource } from './inbox/fake-inbox-source.js';
import { runningFake, type RunningFake } from './running-fake.js';
import { serveFake } from './serve-fake.js';

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

/** How {@link serveProviderFake} serves a provider's fake: what is the vendor's own. */
export interface ProviderFakeServing {
  /** The vendor's name, on the inbox page: `termii`, `twilio`, `Africa's Talking`. */
  readonly name: string;
  /** The port on 127.0.0.1. Default 0: a free one. */
  readonly port?: number | undefined;
  /** Mounts the vendor's routes, after the request log and `/__fake/outbox` (so the log hears them all). */
  readonly routes: (app: Hono) => void;
  /** The vendor's answer to a path it does not serve. */
  readonly notFound: NotFoundHandler;
  /** What the inbox page shows besides the outbox (dial-in sessions, callbacks). */
  readonly inbox?: Omit<FakeInboxSource, 'name' | 'outbox'>;
  /** Forgets the fake's own pending codes or verifications, on `reset`. */
  readonly clearPending: () => void;
}

/**
 * Serves a provider's fake the way every one is served: its app with the request log and the outbox
 * ({@link mountFakeBasics}), the vendor's routes and its not-found answer, on 127.0.0.1 with the inbox page; returns
 * the {@link RunningFake}, to which the fake adds what is its own (`Object.assign`).
 */
export async function serveProviderFake<Message extends FakeMessage>(
  parts: FakeParts<FakeRequest, Message>,
  serving: ProviderFakeServing,
): Promise<RunningFake<FakeRequest, Message>> {
  const app = new Hono();
  mountFakeBasics(app, parts);
  serving.routes(app);
  app.notFound(serving.notFound);
  const server = await serveFake(app.fetch, serving.port ?? 0, {
    name: serving.name,
    outbox: parts.outbox,
    ...serving.inbox,
  });
  return runningFake({ ...parts, server, clearPending: serving.clearPending });
}
