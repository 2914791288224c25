import { clampLatency, type FakeLatency } from './fake-latency.js';
import type { FakeMessage, FakeOutbox } from './fake-outbox.js';
import type { FakeServer } from './serve-fake.js';

/** What every running fake of a provider's API offers a test: where it is, what it delivered, and its knobs. */
export interface RunningFake<Answered, Message extends FakeMessage = FakeMessage> {
  /** Where the fake listens, `http://127.0.0.1:<port>`; the outbox is at `/__fake/outbox`. */
  readonly url: string;
  /** The port it listens on, useful when 0 was asked for. */
  readonly port: number;
  /**
   * The inbox page, `<url>/__inbox`: the messages, USSD sessions and webhooks, live, for a person to look at.
   * Every verikit fake has one; undefined only for a fake served without an inbox source.
   */
  readonly inboxUrl: string | undefined;
  /**
   * The fake's Web-standard handler, answering as its server does, in process and without a socket: give a
   * provider `fetch: (input, init) => fake.fetch(new Request(input, init))` to skip the loopback.
   */
  readonly fetch: (request: Request) => Response | Promise<Response>;
  /** Every message delivered (codes and messages), oldest first. */
  readonly outbox: readonly Message[];
  /** Hears each message as the fake delivers it (the outbox keeps only the last 1,000); returns the unsubscribe function. */
  onMessage(listener: (message: Message) => void): () => void;
  /** The last code sent to an E.164 number, to submit it in a test. */
  lastCode(phoneNumber: string): string | undefined;
  /** The text of the last message to an E.164 number. */
  lastMessage(phoneNumber: string): string | undefined;
  /** Changes the latency of every later answer, in ms, e.g. to test a timeout mid-test. */
  setLatency(ms: number): void;
  /** Listens to answered requests; returns the unsubscribe function. */
  onRequest(listener: (request: Answered) => void): () => void;
  /** Forgets every message and pending code (not the latency), so one fake can serve many tests. */
  reset(): void;
  /** Stops the server. */
  close(): Promise<void>;
}

/** What {@link runningFake} builds a {@link RunningFake} from: the parts every fake has, and how to forget its pending codes. */
export interface RunningFakeParts<Answered, Message extends FakeMessage = FakeMessage> {
  /** The fake's listening server. */
  readonly server: FakeServer;
  /** What it delivered. */
  readonly outbox: FakeOutbox<Message>;
  /** The latency its routes read before answering. */
  readonly latency: FakeLatency;
  /** Who hears of each answered request. */
  readonly listeners: Set<(request: Answered) => void>;
  /** Forgets the fake's own pending codes or verifications, on `reset`. */
  clearPending(): void;
}

/**
 * The {@link RunningFake} every provider fake returns, built once from its parts; a fake adds only what is its
 * own (its base URLs, credentials) with `Object.assign`, which keeps `outbox` a live getter.
 */
export function runningFake<Answered, Message extends FakeMessage = FakeMessage>(
  parts: RunningFakeParts<Answered, Message>,
): RunningFake<Answered, Message> {
  const { server, outbox, latency, listeners, clearPending } = parts;
  return {
    url: server.url,
    port: server.port,
    inboxUrl: server.inboxUrl,
    fetch: server.fetch,
    get outbox() {
      return outbox.messages;
    },
    onMessage: (listener) => outbox.onPush(listener),
    lastCode: (phoneNumber) => outbox.lastCode(phoneNumber),
    lastMessage: (phoneNumber) => outbox.lastText(phoneNumber),
    setLatency(ms) {
      latency.ms = clampLatency(ms);
    },
    onRequest(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    reset() {
      outbox.clear();
      clearPending();
    },
    close: () => server.close(),
  };
}
