import { errorFromEvent } from './errors/error-from-response.js';
import type { FlowClientError } from './errors/flow-client-error.js';
import type { FlowView } from './flow-view.js';
import { parseView } from './parse-view.js';
import { parseJson } from './read-body.js';
import { EventStreamParser, type ServerSentEvent } from './sse-parser.js';
import type { FlowClientTimers } from './timers.js';

/** What {@link readViewStream} reports. */
export interface ViewStreamHandlers {
  /** A `view` event carrying a well-formed view of the flow followed. */
  onView(view: FlowView, receivedAt: number): void;
  /** The server's `retry:` advice, in ms. */
  onRetry(ms: number): void;
}

/**
 * How a stream ended: the server said the flow is done (`finished`, with the final version of its
 * `end` event), the server said it failed (`failed`, with the typed error of its `error` event), the
 * connection closed without saying why (`ended`), or it fell silent longer than allowed (`stale`).
 */
export type ViewStreamEnd =
  | { readonly reason: 'finished'; readonly version: number }
  | { readonly reason: 'failed'; readonly error: FlowClientError }
  | { readonly reason: 'ended' | 'stale' };

/** The end an `end` or `error` event announces; undefined for any other event, or an `end` without a version. */
function announcedEnd(event: ServerSentEvent): ViewStreamEnd | undefined {
  if (event.event === 'error') return { reason: 'failed', error: errorFromEvent(event.data) };
  if (event.event !== 'end') return undefined;
  const version = (parseJson(event.data) as { version?: unknown } | null | undefined)?.version;
  return typeof version === 'number' && Number.isSafeInteger(version) && version >= 0
    ? { reason: 'finished', version }
    : undefined;
}

/**
 * Reads a `text/event-stream` answer of the flow stream to its end, reporting each view, and
 * stops at an `end` or `error` event (decision 0053), which says why the stream ends. Other events,
 * and views that do not parse or belong to another flow, are skipped. When no
 * byte (not even a heartbeat comment) arrives for `staleMs`, the body is cancelled and the result
 * is `stale`: a half-open connection (a phone that changed networks) would otherwise wait forever.
 * Rejects when the connection drops mid-stream.
 */
export async function readViewStream(
  response: Response,
  flowId: string,
  handlers: ViewStreamHandlers,
  timers: FlowClientTimers,
  staleMs: number,
  signal: AbortSignal,
): Promise<ViewStreamEnd> {
  const body = response.body;
  if (body === null) return { reason: 'ended' };
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let announced: ViewStreamEnd | undefined;
  const parser = new EventStreamParser({
    onEvent(event) {
      if (announced !== undefined) return;
      announced = announcedEnd(event);
      if (event.event !== 'view') return;
      const view = parseView(parseJson(event.data), flowId);
      if (view !== undefined) handlers.onView(view, timers.now());
    },
    onRetry: (ms) => handlers.onRetry(ms),
  });
  let stale = false;
  let watchdog: unknown;
  // An abort clears the watchdog at once, not when the cancelled read settles: nothing outlives an unsubscribe.
  const disarm = (): void => {
    if (watchdog !== undefined) timers.clearTimeout(watchdog);
    watchdog = undefined;
  };
  signal.addEventListener('abort', disarm, { once: true });
  const arm = (): void => {
    disarm();
    if (signal.aborted) return;
    watchdog = timers.setTimeout(() => {
      stale = true;
      reader.cancel().catch(() => undefined);
    }, staleMs);
  };
  try {
    arm();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { reason: stale ? 'stale' : 'ended' };
      arm();
      parser.push(decoder.decode(value, { stream: true }));
      if (announced !== undefined) {
        // The server closes right after; nothing it could still send matters.
        await reader.cancel().catch(() => undefined);
        return announced;
      }
    }
  } catch (error) {
    if (stale) return { reason: 'stale' };
    await reader.cancel().catch(() => undefined);
    throw error;
  } finally {
    disarm();
    signal.removeEventListener('abort', disarm);
  }
}
