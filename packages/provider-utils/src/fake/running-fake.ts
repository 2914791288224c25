import type { FakeMessage } from './fake-outbox.js';

/** What every running fake of a provider's API offers a test: where it is, what it delivered, and its knobs. */
export interface RunningFake<Answered> {
  /** Where the fake listens, `http://127.0.0.1:<port>`; the outbox is at `/__fake/outbox`. */
  readonly url: string;
  /** The port it listens on, useful when 0 was asked for. */
  readonly port: number;
  /** Every message delivered (codes and messages), oldest first. */
  readonly outbox: readonly FakeMessage[];
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
