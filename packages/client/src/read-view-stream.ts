import type { FlowView } from './flow-view.js';
import { parseView } from './parse-view.js';
import { EventStreamParser } from './sse-parser.js';
import type { FlowClientTimers } from './timers.js';

/** What {@link readViewStream} reports. */
export interface ViewStreamHandlers {
  /** A `view` event carrying a well-formed view of the flow followed. */
  onView(view: FlowView, receivedAt: number): void;
  /** The server's `retry:` advice, in ms. */
  onRetry(ms: number): void;
}

/** How a stream ended: the server closed it (`ended`) or it fell silent longer than allowed (`stale`). */
export type ViewStreamEnd = 'ended' | 'stale';

/**
 * Reads a `text/event-stream` answer of the flow stream to its end, reporting each view. Events
 * other than `view`, and views that do not parse or belong to another flow, are skipped. When no
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
  if (body === null) return 'ended';
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new EventStreamParser({
    onEvent(event) {
      if (event.event !== 'view') return;
      let value: unknown;
      try {
        value = JSON.parse(event.data);
      } catch {
        return;
      }
      const view = parseView(value, flowId);
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
      if (done) return stale ? 'stale' : 'ended';
      arm();
      parser.push(decoder.decode(value, { stream: true }));
    }
  } catch (error) {
    if (stale) return 'stale';
    await reader.cancel().catch(() => undefined);
    throw error;
  } finally {
    disarm();
    signal.removeEventListener('abort', disarm);
  }
}
