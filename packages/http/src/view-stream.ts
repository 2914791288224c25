import type { FlowListener, FlowView } from '@verikit/core';

/** What {@link openViewStream} needs. */
export interface ViewStreamSource {
  /** Subscribes to the flow's committed views; returns the unsubscribe function. */
  subscribe(listener: FlowListener): () => void;
  /**
   * Resolves once the subscription is live everywhere (a Redis SUBSCRIBE confirmed), so a change
   * committed after the read below cannot be missed. Absent: the subscription is live at once.
   */
  ready?: (() => Promise<void>) | undefined;
  /** Reads the flow's current view. */
  read(): Promise<FlowView>;
  /** Called with the current view before the stream opens; throws to refuse it (403). */
  check(view: FlowView): Promise<void>;
  /**
   * Interval of the `: heartbeat` comments that keep proxies from closing an idle stream. Each
   * heartbeat also reads the flow again, so a stream learns that its flow is gone or the store is
   * down (and catches a change the bus lost).
   */
  heartbeatMs: number;
  /** The JSON body of the `error` event for an error that ends the stream (the same body as an error answer). */
  describeError(error: unknown): unknown;
  /** The `Last-Event-ID` a reconnecting EventSource sent: the last version it saw. */
  lastEventId?: number | undefined;
}

/** How long an EventSource waits before reconnecting after a dropped connection. */
const reconnectMs = 3000;
const encoder = new TextEncoder();

/** One server-sent event carrying a view; its id is the view's version. */
function viewEvent(view: FlowView): string {
  return `id: ${view.version}\nevent: view\ndata: ${JSON.stringify(view)}\n\n`;
}

/**
 * The bytes of a view's event, made once per view: a change bus hands the same frozen view to every
 * stream of the flow, so a change watched by 1,000 streams is serialized once, not 1,000 times.
 */
const encodedEvents = new WeakMap<FlowView, Uint8Array>();

function encodedEvent(view: FlowView): Uint8Array {
  let bytes = encodedEvents.get(view);
  if (bytes === undefined) {
    bytes = encoder.encode(viewEvent(view));
    encodedEvents.set(view, bytes);
  }
  return bytes;
}

/** The event before a normal close: the flow is done, and this was its last version. */
function endEvent(version: number): Uint8Array {
  return encoder.encode(`event: end\ndata: ${JSON.stringify({ version })}\n\n`);
}

/** The event before a close on a failure: the typed error, as an error answer's body. */
function errorEvent(body: unknown): Uint8Array {
  return encoder.encode(`event: error\ndata: ${JSON.stringify(body)}\n\n`);
}

const heartbeatBytes = encoder.encode(': heartbeat\n\n');
const retryBytes = encoder.encode(`retry: ${reconnectMs}\n\n`);

/**
 * One timer per heartbeat interval for every open stream, instead of one per stream: an idle stream
 * then costs an entry in a set. A stream's first heartbeat comes within one interval of its opening.
 */
const heartbeats = new Map<
  number,
  { readonly beats: Set<() => void>; readonly timer: ReturnType<typeof setInterval> }
>();

function onHeartbeat(intervalMs: number, beat: () => void): () => void {
  let group = heartbeats.get(intervalMs);
  if (group === undefined) {
    const beats = new Set<() => void>();
    const timer = setInterval(() => {
      for (const each of beats) each();
    }, intervalMs);
    group = { beats, timer };
    heartbeats.set(intervalMs, group);
  }
  const { beats, timer } = group;
  beats.add(beat);
  return () => {
    beats.delete(beat);
    if (beats.size === 0 && heartbeats.get(intervalMs)?.beats === beats) {
      clearInterval(timer);
      heartbeats.delete(intervalMs);
    }
  };
}

/** Where a stream's events go: a Web `ReadableStream`'s controller, or node's response (node-event-stream.ts). */
interface EventSink {
  /** Writes one event's bytes. */
  write(bytes: Uint8Array): void;
  /** Ends the stream (after its last event). */
  close(): void;
}

/**
 * A stream that passed its checks: `start` begins writing its events to a sink and returns the function that stops
 * it (the client went away), which unsubscribes and stops its heartbeat.
 */
export type PreparedViewStream = (sink: EventSink) => () => void;

/**
 * Prepares a server-sent-events stream of a flow's views: the current view first, then every
 * committed change, each once and in version order (older or repeated versions are dropped, so
 * a change bus that delivers twice or out of order does no harm). Subscribes, waits until the
 * subscription is live, then reads and checks (`source.check`, which throws to refuse the stream): no change
 * between the read and the subscription is lost. Resolves to `undefined` when there is nothing
 * to send: the flow is done and the client already saw its last version (answer 204, which
 * tells an EventSource to stop reconnecting).
 *
 * The stream says why it ends (docs/decisions/0053-stream-says-why-it-ends.md): when the flow is
 * done, the final view then `event: end` with its version; when a heartbeat's read fails (the flow
 * is gone, the store is down), `event: error` with the typed error. Either way it then closes,
 * unsubscribing. It also closes, silently, when the function `start` returned is called.
 *
 * The checks all happen here, before anything is written: how the events are then written (a Web
 * `ReadableStream`, {@link openViewStream}; node's response, node-event-stream.ts) is the server's business.
 */
export async function prepareViewStream(source: ViewStreamSource): Promise<PreparedViewStream | undefined> {
  const early: FlowView[] = [];
  let sink: FlowListener | undefined;
  const unsubscribe = source.subscribe((view) => (sink === undefined ? early.push(view) : sink(view)));
  let initial: FlowView;
  try {
    await source.ready?.();
    initial = await source.read();
    await source.check(initial);
  } catch (error) {
    unsubscribe();
    throw error;
  }
  if (initial.done && source.lastEventId !== undefined && source.lastEventId >= initial.version) {
    unsubscribe();
    return undefined;
  }

  // The stream's closures live as long as the stream: they get only what they use, never `source`,
  // which holds the request and everything it references (a third of a stream's heap).
  const setSink = (next: FlowListener | undefined): void => {
    sink = next;
  };
  const { read, describeError } = source;
  const first = [initial, ...early.splice(0)];
  const { heartbeatMs } = source;
  return (out) => runEvents(first, setSink, unsubscribe, { read, describeError }, heartbeatMs, out);
}

/**
 * {@link prepareViewStream} as a Web `ReadableStream` (every runtime): it closes, silently, when `signal` aborts
 * (the client went away) or the consumer cancels it.
 */
export async function openViewStream(
  source: ViewStreamSource & { signal: AbortSignal },
): Promise<ReadableStream<Uint8Array> | undefined> {
  const prepared = await prepareViewStream(source);
  if (prepared === undefined) return undefined;
  const { signal } = source;
  let stop: (() => void) | undefined;
  let onAbort: (() => void) | undefined;
  const detach = (): void => {
    stop?.();
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false;
      const close = (): void => {
        if (closed) return;
        closed = true;
        detach();
        try {
          controller.close();
        } catch {
          // Already closed or errored by the consumer.
        }
      };
      stop = prepared({ write: (bytes) => controller.enqueue(bytes), close });
      if (closed) return;
      onAbort = close;
      signal.addEventListener('abort', onAbort, { once: true });
      if (signal.aborted) close();
    },
    cancel() {
      detach();
    },
  });
}

/** Writes `first` (the current view and any change before it), then what `setSink` receives, to `out`; returns stop. */
function runEvents(
  first: FlowView[],
  setSink: (sink: FlowListener | undefined) => void,
  unsubscribe: () => void,
  reader: Pick<ViewStreamSource, 'read' | 'describeError'>,
  heartbeatMs: number,
  out: EventSink,
): () => void {
  let closed = false;
  let lastVersion = 0;
  let stopHeartbeat: (() => void) | undefined;

  function finish(): void {
    if (closed) return;
    closed = true;
    setSink(undefined);
    unsubscribe();
    stopHeartbeat?.();
  }
  const close = (): void => {
    if (closed) return;
    finish();
    out.close();
  };
  const emit = (view: FlowView): void => {
    if (closed || view.version <= lastVersion) return;
    lastVersion = view.version;
    out.write(encodedEvent(view));
    if (!view.done) return;
    out.write(endEvent(view.version));
    close();
  };
  let reading = false;
  const check = (): void => {
    if (closed || reading) return;
    reading = true;
    reader
      .read()
      .then(emit, (error: unknown) => {
        if (closed) return;
        out.write(errorEvent(reader.describeError(error)));
        close();
      })
      .catch(() => undefined)
      .finally(() => {
        reading = false;
      });
  };
  out.write(retryBytes);
  for (const view of first.splice(0)) emit(view);
  if (closed) return finish;
  setSink(emit);
  stopHeartbeat = onHeartbeat(heartbeatMs, () => {
    if (closed) return;
    out.write(heartbeatBytes);
    check();
  });
  return finish;
}
