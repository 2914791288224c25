import type { FlowListener, FlowView } from '@verikit/core';
import type { StreamCounter } from './stream-limits.js';

/** What the live streams need from the engine (a `Verikit` has all three). */
interface LiveViewSource {
  /** Subscribes to the flow's committed views; returns the unsubscribe function. */
  subscribe(flowId: string, listener: FlowListener): () => void;
  /**
   * Resolves once the subscription is live everywhere (a Redis SUBSCRIBE confirmed), so a change committed after a
   * read that follows cannot be missed.
   */
  subscribed(flowId: string): Promise<void>;
  /** Reads the flow's current view. */
  get(flowId: string): Promise<FlowView>;
}

/** What {@link LiveStreams} needs: the engine, the slots per client and flow, the heartbeat, the error events. */
export interface LiveStreamsOptions {
  readonly source: LiveViewSource;
  /** Counts live streams per client and per flow: a stream takes a slot before it subscribes, gives it back once. */
  readonly counter: StreamCounter;
  /**
   * Interval of the `: heartbeat` comments that keep proxies from closing an idle stream. Each heartbeat also reads
   * the flow again, once for all its streams, so they learn that the flow is gone or the store is down (and catch a
   * change the bus lost).
   */
  readonly heartbeatMs: number;
  /** The JSON body of the `error` event for an error that ends the stream (the same body as an error answer). */
  readonly describeError: (error: unknown) => unknown;
}

/** One stream asked for: whose, of which flow, and the route's checks. */
export interface ViewStreamRequest {
  readonly flowId: string;
  /** The client key the per-client cap counts (undefined: counted per flow only). */
  readonly client: string | undefined;
  /** The `Last-Event-ID` a reconnecting EventSource sent: the last version it saw. */
  readonly lastEventId: number | undefined;
  /** Called with the current view before the stream opens; throws to refuse it (403). */
  readonly check: (view: FlowView) => Promise<void>;
}

/** Where a stream's events go: node's `ServerResponse` itself, or a sink over a Web `ReadableStream`'s controller. */
interface EventSink {
  /** Writes one event's bytes. */
  write(bytes: Uint8Array): unknown;
  /** Ends the stream, after its last event. */
  end(): unknown;
}

/**
 * A stream that passed its checks: {@link PreparedViewStream.start} begins writing its events to a sink,
 * {@link PreparedViewStream.stop} ends it silently (the client went away).
 */
export interface PreparedViewStream {
  start(sink: EventSink): void;
  stop(): void;
}

/** How long an EventSource waits before reconnecting after a dropped connection. */
const reconnectMs = 3000;
const encoder = new TextEncoder();

/**
 * The bytes of a view's event, made once per view: a change bus hands the same frozen view to every
 * listener, so a change watched by 1,000 streams is serialized once, not 1,000 times.
 */
const encodedEvents = new WeakMap<FlowView, Uint8Array>();

function encodedEvent(view: FlowView): Uint8Array {
  let bytes = encodedEvents.get(view);
  if (bytes === undefined) {
    bytes = encoder.encode(`id: ${view.version}\nevent: view\ndata: ${JSON.stringify(view)}\n\n`);
    encodedEvents.set(view, bytes);
  }
  return bytes;
}

/** The event before a normal close: the flow is done, and this was its last version. */
function endEvent(version: number): Uint8Array {
  return encoder.encode(`event: end\ndata: ${JSON.stringify({ version })}\n\n`);
}

const heartbeatBytes = encoder.encode(': heartbeat\n\n');
const retryBytes = encoder.encode(`retry: ${reconnectMs}\n\n`);

/**
 * The live streams of one flow handler (decision 1330). A flow with open streams has one channel: one
 * subscription to the engine and one heartbeat read for all its streams; each stream is one object.
 * One timer beats for every channel. Nothing per stream is a closure: an open stream costs its object and an entry
 * in its channel's set.
 */
export class LiveStreams {
  readonly options: LiveStreamsOptions;
  readonly #channels = new Map<string, FlowChannel>();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(options: LiveStreamsOptions) {
    this.options = options;
  }

  /**
   * Prepares a server-sent-events stream of a flow's views: the current view first, then every committed change,
   * each once and in version order (older or repeated versions are dropped, so a change bus that delivers twice or
   * out of order does no harm). Takes a slot (a `RateLimitedError` past a cap), subscribes, waits until the
   * subscription is live, then reads and checks: no change between the read and the subscription is lost. Nothing
   * is written before {@link PreparedViewStream.start}. Resolves to `undefined`, holding nothing, when there is nothing to
   * send: the flow is done and the client already saw its last version (answer 204, which tells an EventSource to
   * stop reconnecting).
   */
  async open(request: ViewStreamRequest): Promise<PreparedViewStream | undefined> {
    const { flowId, client } = request;
    this.options.counter.take(client, flowId);
    let stream: ViewStream;
    try {
      stream = new ViewStream(this.#channel(flowId), client);
    } catch (error) {
      this.options.counter.release(client, flowId);
      throw error;
    }
    try {
      await this.options.source.subscribed(flowId);
      const initial = await this.options.source.get(flowId);
      await request.check(initial);
      if (initial.done && request.lastEventId !== undefined && request.lastEventId >= initial.version) {
        stream.stop();
        return undefined;
      }
      stream.prepend(initial);
      return stream;
    } catch (error) {
      stream.stop();
      throw error;
    }
  }

  #channel(flowId: string): FlowChannel {
    let channel = this.#channels.get(flowId);
    if (channel === undefined) {
      channel = new FlowChannel(this, flowId);
      this.#channels.set(flowId, channel);
      this.#timer ??= setInterval(() => {
        for (const each of this.#channels.values()) each.beat();
      }, this.options.heartbeatMs);
    }
    return channel;
  }

  /** Called by a channel whose last stream left. */
  closed(channel: { readonly flowId: string }): void {
    if (this.#channels.get(channel.flowId) === channel) this.#channels.delete(channel.flowId);
    if (this.#channels.size === 0 && this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }
}

/** The streams of one flow: one subscription and one heartbeat read for all of them. */
class FlowChannel {
  readonly streams = new Set<ViewStream>();
  readonly live: LiveStreams;
  readonly flowId: string;
  readonly #unsubscribe: () => void;
  #reading = false;

  constructor(live: LiveStreams, flowId: string) {
    this.live = live;
    this.flowId = flowId;
    this.#unsubscribe = live.options.source.subscribe(flowId, (view) => this.deliver(view));
  }

  /** A view for every stream of the flow (each drops what it has sent already). */
  deliver(view: FlowView): void {
    for (const stream of this.streams) stream.receive(view);
  }

  /** A heartbeat on every started stream, then one read of the flow for all. */
  beat(): void {
    for (const stream of this.streams) stream.beat();
    if (this.#reading) return;
    this.#reading = true;
    this.live.options.source
      .get(this.flowId)
      .then(
        (view) => this.deliver(view),
        (error: unknown) => {
          const bytes = encoder.encode(
            `event: error\ndata: ${JSON.stringify(this.live.options.describeError(error))}\n\n`,
          );
          for (const stream of this.streams) stream.fail(bytes);
        },
      )
      .catch(() => undefined)
      .finally(() => {
        this.#reading = false;
      });
  }

  leave(stream: ViewStream, client: string | undefined): void {
    this.live.options.counter.release(client, this.flowId);
    if (!this.streams.delete(stream) || this.streams.size > 0) return;
    this.#unsubscribe();
    this.live.closed(this);
  }
}

/**
 * One open stream: what it has sent and where it writes. Before {@link start} it keeps the views it receives; from
 * then on it writes each newer one. It says why it ends (decision 0053): when the flow is done, the final view then
 * `event: end` with its version; when a heartbeat's read fails (the flow is gone, the store is down), `event: error`
 * with the typed error. Either way it then ends the sink and leaves its channel. {@link stop} leaves silently.
 */
class ViewStream implements PreparedViewStream {
  readonly #channel: FlowChannel;
  readonly #client: string | undefined;
  #sink: EventSink | undefined;
  #pending: FlowView[] | undefined;
  #lastVersion = 0;
  #closed = false;

  constructor(channel: FlowChannel, client: string | undefined) {
    this.#channel = channel;
    this.#client = client;
    channel.streams.add(this);
  }

  /** The current view, read after the subscription: it goes before what arrived meanwhile. */
  prepend(view: FlowView): void {
    this.#pending = this.#pending === undefined ? [view] : [view, ...this.#pending];
  }

  /** Starts writing to `sink`: the reconnect delay, the views received so far, then each change as it comes. */
  start(sink: EventSink): void {
    if (this.#closed) return;
    this.#sink = sink;
    sink.write(retryBytes);
    const pending = this.#pending ?? [];
    this.#pending = undefined;
    for (const view of pending) this.receive(view);
  }

  receive(view: FlowView): void {
    const sink = this.#sink;
    if (this.#closed) return;
    if (sink === undefined) {
      if (this.#pending === undefined) this.#pending = [view];
      else this.#pending.push(view);
      return;
    }
    if (view.version <= this.#lastVersion) return;
    this.#lastVersion = view.version;
    sink.write(encodedEvent(view));
    if (!view.done) return;
    sink.write(endEvent(view.version));
    this.#end(sink);
  }

  beat(): void {
    if (!this.#closed) this.#sink?.write(heartbeatBytes);
  }

  /** Ends a started stream with an `error` event (`bytes`). */
  fail(bytes: Uint8Array): void {
    const sink = this.#sink;
    if (this.#closed || sink === undefined) return;
    sink.write(bytes);
    this.#end(sink);
  }

  /** Stops, silently (the client went away): leaves the channel, gives the slot back. Once, however often called. */
  stop(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#pending = undefined;
    this.#channel.leave(this, this.#client);
  }

  #end(sink: EventSink): void {
    this.stop();
    sink.end();
  }
}
