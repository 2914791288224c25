import { remainingMs } from './countdown.js';
import type { FlowClientError } from './errors/flow-client-error.js';
import { asClientError } from './errors/error-from-response.js';
import { followFlow, isTerminal, type FlowConnection, type FollowTimings } from './follow-flow.js';
import type { FlowView } from './flow-view.js';
import { parseView } from './parse-view.js';
import { Subscribable } from './subscribable.js';
import type { FlowTransport } from './transport.js';

/** What an observer shows: replaced as a whole on every change, so it can be compared by reference. */
export interface FlowObserverResult {
  /** The flow this result is about. */
  readonly flowId: string;
  /** The newest view seen (highest version), or undefined before the first read. */
  readonly view: FlowView | undefined;
  /** The last problem reading or following the flow; undefined again once a read or the stream works. */
  readonly error: FlowClientError | undefined;
  /** The live connection: `closed` once the flow is done or gone, `idle` while nobody subscribes. */
  readonly connection: FlowConnection;
  /** `view.resendAvailableAt` on this device's clock. */
  readonly localResendAvailableAt: number | undefined;
  /** `view.expiresAt` on this device's clock. */
  readonly localExpiresAt: number | undefined;
}

/** Called with the new result after every change. */
export type FlowObserverListener = (result: FlowObserverResult) => void;

/** Options of an observer. */
export interface FlowObserverOptions {
  /** A view already at hand (the answer of `start`, or server-rendered): shown at once. */
  initialView?: FlowView;
  /** The first reconnect wait, in ms. Default: the server's `retry:` advice, else 1,000. */
  reconnectDelayMs?: number;
  /** The longest reconnect wait, in ms. Default 30,000. */
  maxReconnectDelayMs?: number;
  /** Silence (not even a heartbeat) after which the stream counts as dead, in ms. Default 45,000 (three server heartbeats). */
  staleStreamMs?: number;
}

/** Where an observer registers, while it has subscribers, to receive the views of `start`, `send` and `get`. */
export type ObserverRegistry = Pick<Set<FlowObserver>, 'add' | 'delete'>;

/** Re-reads after a deadline whose effect the server did not show yet (clock estimate off): waits after the deadline, in ms. */
const deadlineRetries = [1, 500, 2000];

/** Same content: `serverTime` says when the server read the view, not what it holds, so it is left out. */
function sameView(a: FlowView, b: FlowView): boolean {
  return JSON.stringify({ ...a, serverTime: undefined }) === JSON.stringify({ ...b, serverTime: undefined });
}

/**
 * Follows one flow, in the shape of TanStack Query's `QueryObserver`: `subscribe(listener)` returns
 * the unsubscribe function, `getCurrentResult()` (and `getCurrentView()`) return the current state,
 * unchanged by reference until something changes. Work starts with the first subscriber and stops
 * with the last: the server-sent-events connection, reconnects with backoff, and a timer that reads
 * the flow again when `resendAvailableAt` or `expiresAt` passes (the server pushes no event for
 * those moments, as TanStack's stale timer re-reads when data goes stale). Views from every source
 * (stream, re-reads, the answers of `send`) are merged by version: the highest wins, so they may
 * arrive in any order. Closes when the flow is done.
 */
export class FlowObserver extends Subscribable<FlowObserverListener> {
  /** The flow this observer follows. */
  readonly flowId: string;
  readonly #transport: FlowTransport;
  readonly #registry: ObserverRegistry;
  readonly #timings: FollowTimings;
  #result: FlowObserverResult;
  #active = false;
  #run: AbortController | undefined;
  #deadlineTimer: unknown;
  readonly #deadlineTries = new Map<string, number>();
  #reading: Promise<FlowClientError | undefined> | undefined;
  #stopClock: (() => void) | undefined;

  /**
   * Use `client.observe(flowId)`: the transport and registry are the client's own.
   *
   * @internal
   */
  constructor(transport: FlowTransport, registry: ObserverRegistry, flowId: string, options: FlowObserverOptions = {}) {
    super();
    this.flowId = flowId;
    this.#transport = transport;
    this.#registry = registry;
    this.#timings = {
      reconnectDelayMs: options.reconnectDelayMs,
      maxReconnectDelayMs: options.maxReconnectDelayMs ?? 30_000,
      staleStreamMs: options.staleStreamMs ?? 45_000,
    };
    const initial = options.initialView === undefined ? undefined : parseView(options.initialView, flowId);
    this.#result = this.#resultFor(initial, undefined, 'idle');
    this.getCurrentResult = this.getCurrentResult.bind(this);
    this.getCurrentView = this.getCurrentView.bind(this);
  }

  /** The current result; the same object until something changes (what `useSyncExternalStore` needs). */
  getCurrentResult(): FlowObserverResult {
    return this.#result;
  }

  /** The newest view seen, or undefined before the first read. */
  getCurrentView(): FlowView | undefined {
    return this.#result.view;
  }

  /** Milliseconds until `resend` becomes available, on the server's clock as estimated; undefined without a cooldown. */
  resendInMs(now: number = this.#transport.timers.now()): number | undefined {
    return remainingMs(this.#result.localResendAvailableAt, now);
  }

  /** Milliseconds until the code or USSD session expires, on the server's clock as estimated; undefined without an expiry. */
  expiresInMs(now: number = this.#transport.timers.now()): number | undefined {
    return remainingMs(this.#result.localExpiresAt, now);
  }

  /** Reads the flow now. Resolves to the error when the read failed (also shown in the result), else undefined. */
  refetch(): Promise<FlowClientError | undefined> {
    return this.#reread();
  }

  /**
   * Takes a view from any source; kept only when newer than the one shown: a higher version, or the
   * same version read later (time-only changes, such as `resend` becoming allowed or the flow
   * expiring, leave the version unchanged). A done view is never replaced by a not-done one.
   * Returns true when the result changed.
   */
  offer(candidate: FlowView): boolean {
    const view = parseView(candidate, this.flowId);
    if (view === undefined) return false;
    const current = this.#result.view;
    if (current !== undefined) {
      if (view.version < current.version) return false;
      if (view.version === current.version) {
        if (current.done && !view.done) return false;
        if (current.serverTime !== undefined && view.serverTime !== undefined && view.serverTime < current.serverTime)
          return false;
        if (sameView(current, view)) return false;
      }
    }
    this.#set(this.#resultFor(view, undefined, view.done ? 'closed' : this.#result.connection));
    if (view.done) this.#finish();
    else this.#scheduleDeadline();
    return true;
  }

  /** The first subscriber starts the work: registration with the client, the stream, the deadline timer. */
  protected override onSubscribe(): void {
    if (this.#active) return;
    this.#active = true;
    this.#registry.add(this);
    // A corrected clock estimate moves the local deadlines (a fast device clock learnt from a later answer).
    this.#stopClock = this.#transport.clock.onChange(() => this.#clockChanged());
    this.#startFollowing();
  }

  /** The last unsubscriber stops it; the result keeps its view and shows the connection `idle`. */
  protected override onUnsubscribe(): void {
    if (this.hasListeners() || !this.#active) return;
    this.#active = false;
    this.#registry.delete(this);
    this.#stopClock?.();
    this.#stopClock = undefined;
    this.#stopFollowing();
    this.#result = Object.freeze({
      ...this.#result,
      connection: this.#result.connection === 'closed' ? 'closed' : 'idle',
    });
  }

  #startFollowing(): void {
    if (this.#result.view?.done === true) {
      this.#finish();
      return;
    }
    const run = new AbortController();
    this.#run = run;
    void followFlow(
      {
        flowId: this.flowId,
        transport: this.#transport,
        lastVersion: () => this.#result.view?.version,
        isDone: () => this.#result.view?.done === true,
        offer: (view) => this.offer(view),
        reread: () => this.#reread(),
        report: (patch) => {
          if (this.#run !== run || run.signal.aborted) return;
          const next = { ...this.#result, ...patch };
          if (next.connection !== this.#result.connection || next.error !== this.#result.error) this.#set(next);
        },
      },
      this.#timings,
      run.signal,
    );
    this.#scheduleDeadline();
  }

  /** The clock estimate changed or became known: the same view, with its deadlines on this device's clock again. */
  #clockChanged(): void {
    const { view, error, connection, localResendAvailableAt, localExpiresAt } = this.#result;
    const next = this.#resultFor(view, error, connection);
    if (next.localResendAvailableAt !== localResendAvailableAt || next.localExpiresAt !== localExpiresAt)
      this.#set(next);
    this.#scheduleDeadline();
  }

  #stopFollowing(): void {
    this.#run?.abort();
    this.#run = undefined;
    if (this.#deadlineTimer !== undefined) this.#transport.timers.clearTimeout(this.#deadlineTimer);
    this.#deadlineTimer = undefined;
  }

  /** The flow is done: nothing more can change, so the connection and the timers go. */
  #finish(): void {
    this.#stopFollowing();
    if (this.#result.connection !== 'closed') this.#set({ ...this.#result, connection: 'closed' });
  }

  #reread(): Promise<FlowClientError | undefined> {
    this.#reading ??= this.#transport
      .view('GET', `/flows/${this.flowId}`, undefined, undefined, this.flowId)
      .then(
        (view) => {
          this.offer(view);
          if (this.#result.error !== undefined && this.#result.view?.done !== true)
            this.#set({ ...this.#result, error: undefined });
          return undefined;
        },
        (error: unknown) => {
          const failure = asClientError(error);
          const terminal = isTerminal(failure);
          if (terminal) this.#stopFollowing();
          this.#set({ ...this.#result, error: failure, connection: terminal ? 'closed' : this.#result.connection });
          return failure;
        },
      )
      .finally(() => {
        this.#reading = undefined;
      });
    return this.#reading;
  }

  /** Arms one timer for the nearest deadline not yet handled (TanStack's stale timer, for two deadlines). */
  #scheduleDeadline(): void {
    const timers = this.#transport.timers;
    if (this.#deadlineTimer !== undefined) timers.clearTimeout(this.#deadlineTimer);
    this.#deadlineTimer = undefined;
    const view = this.#result.view;
    // Before any answer the clock estimate is a guess: a fast device clock would put every deadline in the
    // past and read at once. The first answer (the stream's, which is under way) schedules it again.
    if (this.#run === undefined || view === undefined || view.done || !this.#transport.clock.answered) return;
    let next: { key: string; at: number } | undefined;
    for (const [name, serverAt] of [
      ['resend', view.resendAvailableAt],
      ['expiry', view.expiresAt],
    ] as const) {
      // A deadline the server had already passed when it made the view is shown in it: nothing to read again.
      if (serverAt === undefined || (view.serverTime !== undefined && serverAt <= view.serverTime)) continue;
      const key = `${name}:${serverAt}`;
      const tries = this.#deadlineTries.get(key) ?? 0;
      if (tries >= deadlineRetries.length) continue;
      const at = this.#transport.clock.toLocal(serverAt) + deadlineRetries[tries]!;
      if (next === undefined || at < next.at) next = { key, at };
    }
    if (next === undefined) return;
    const { key, at } = next;
    this.#deadlineTimer = timers.setTimeout(
      () => {
        this.#deadlineTimer = undefined;
        this.#deadlineTries.set(key, (this.#deadlineTries.get(key) ?? 0) + 1);
        const before = this.#result.view;
        void this.#reread().then(() => {
          // A changed view shows the deadline passed; the same view means the server's clock is not there yet: try again a little later.
          if (this.#result.view !== before) this.#deadlineTries.set(key, deadlineRetries.length);
          this.#scheduleDeadline();
        });
      },
      Math.max(0, at - timers.now()),
    );
  }

  #resultFor(
    view: FlowView | undefined,
    error: FlowClientError | undefined,
    connection: FlowConnection,
  ): FlowObserverResult {
    const clock = this.#transport.clock;
    return Object.freeze({
      flowId: this.flowId,
      view,
      error,
      connection,
      localResendAvailableAt: view?.resendAvailableAt === undefined ? undefined : clock.toLocal(view.resendAvailableAt),
      localExpiresAt: view?.expiresAt === undefined ? undefined : clock.toLocal(view.expiresAt),
    });
  }

  #set(result: FlowObserverResult): void {
    this.#result = Object.freeze(result);
    for (const listener of this.listeners) listener(result);
  }
}
