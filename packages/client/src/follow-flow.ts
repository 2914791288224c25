import { backoffDelay } from './backoff.js';
import { asClientError, badResponse, errorFromResponse } from './errors/error-from-response.js';
import type { FlowClientError } from './errors/flow-client-error.js';
import type { FlowView } from './flow-view.js';
import { readViewStream } from './read-view-stream.js';
import { sleep } from './timers.js';
import type { FlowTransport } from './transport.js';

/** The state of an observer's live connection. */
export type FlowConnection = 'idle' | 'connecting' | 'open' | 'reconnecting' | 'closed';

/** What the follow loop needs from its observer. */
export interface FollowTarget {
  readonly flowId: string;
  readonly transport: FlowTransport;
  /** The highest version seen, sent as `Last-Event-ID`. */
  lastVersion(): number | undefined;
  isDone(): boolean;
  /** A view the stream delivered. */
  offer(view: FlowView, receivedAt: number): void;
  /** Reads the flow with a GET and offers the view; resolves to the error when the read failed. */
  reread(): Promise<FlowClientError | undefined>;
  report(patch: { connection?: FlowConnection; error?: FlowClientError | undefined }): void;
}

/** Timings of the follow loop. */
export interface FollowTimings {
  /** The first reconnect wait; default: what the server's `retry:` says, else 1 s. */
  reconnectDelayMs: number | undefined;
  maxReconnectDelayMs: number;
  /** Silence after which a stream counts as dead. */
  staleStreamMs: number;
}

const defaultReconnectDelayMs = 1000;

/** An error after which reading the flow again cannot help: it is gone (404) or refused (403, 400). */
export function isTerminal(error: FlowClientError): boolean {
  return !error.isRetryable && error.statusCode >= 400 && error.statusCode < 500;
}

function isEventStream(response: Response): boolean {
  return (
    response.status === 200 &&
    (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream')
  );
}

/**
 * After the stream's `end` event: the flow is done at `version`. Reads the flow once unless a done
 * view of that version is already held. True when following is over (done, or gone: reported);
 * false only when that read failed for a passing reason, so the loop reconnects to get the final view.
 */
async function finished(target: FollowTarget, version: number): Promise<boolean> {
  if (target.isDone() && (target.lastVersion() ?? -1) >= version) return true;
  const readError = await target.reread();
  if (target.isDone()) return true;
  if (readError !== undefined && isTerminal(readError)) {
    target.report({ connection: 'closed', error: readError });
    return true;
  }
  target.report({ error: readError });
  return false;
}

/**
 * Follows a flow until it is done or `signal` aborts: opens the stream (resuming with
 * `Last-Event-ID`) and offers each view. After the stream's `end` event it stops (reading the flow
 * once if the done view did not arrive). When the stream sends `error` (decision 0053) or answers
 * anything but a stream (404, 403, 503, a proxy's 502), it reads the flow again with a GET to learn
 * what happened, then reconnects with backoff; when it closes without saying why, drops or falls
 * silent, it reconnects. An EventSource would give up for good
 * on any non-200 answer without telling why; this loop stops only when the flow is done or the
 * re-read says it is gone or refused (the error is then reported).
 */
export async function followFlow(target: FollowTarget, timings: FollowTimings, signal: AbortSignal): Promise<void> {
  const { transport } = target;
  let attempt = 0;
  let serverRetryMs: number | undefined;
  let connection: FlowConnection = 'connecting';
  while (!signal.aborted && !target.isDone()) {
    target.report({ connection });
    connection = 'reconnecting';
    let retryAfterMs: number | undefined;
    try {
      const response = await transport.stream(target.flowId, target.lastVersion(), signal);
      let failed = false;
      let streamError: FlowClientError | undefined;
      if (isEventStream(response)) {
        target.report({ connection: 'open', error: undefined });
        const handlers = {
          onView: (view: FlowView, receivedAt: number) => {
            attempt = 0;
            transport.clock.observeServerTime(view.serverTime, -Infinity, receivedAt);
            target.offer(view, receivedAt);
          },
          onRetry: (ms: number) => {
            serverRetryMs = ms;
          },
        };
        const end = await readViewStream(
          response,
          target.flowId,
          handlers,
          transport.timers,
          timings.staleStreamMs,
          signal,
        );
        if (end.reason === 'finished' && (await finished(target, end.version))) return;
        // A failed stream is handled as a refused one; a stream closed without saying why, or silent, just reconnects.
        failed = end.reason === 'failed';
        if (end.reason === 'failed') streamError = end.error;
      } else {
        failed = true;
        streamError =
          response.status === 204
            ? undefined
            : response.ok
              ? badResponse(response.status, 'an event stream')
              : await errorFromResponse(response, transport.timers.now());
        await response.body?.cancel().catch(() => undefined);
      }
      if (failed) {
        // The re-read tells whether the flow is done, gone or refused, or the failure passes.
        retryAfterMs = streamError?.retryAfterMs;
        const readError = await target.reread();
        if (readError !== undefined && isTerminal(readError)) {
          target.report({ connection: 'closed', error: readError });
          return;
        }
        if (signal.aborted || target.isDone()) return;
        target.report({ error: readError ?? streamError });
      }
    } catch (error) {
      if (signal.aborted) return;
      target.report({ error: asClientError(error) });
    }
    if (signal.aborted || target.isDone()) return;
    target.report({ connection: 'reconnecting' });
    const initialMs = timings.reconnectDelayMs ?? serverRetryMs ?? defaultReconnectDelayMs;
    await sleep(
      transport.timers,
      backoffDelay(attempt, { initialMs, maxMs: timings.maxReconnectDelayMs }, retryAfterMs),
      signal,
    );
    attempt += 1;
  }
}
