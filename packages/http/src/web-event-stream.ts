import type { PreparedViewStream } from './view-stream.js';

/**
 * A prepared stream as a Web `ReadableStream` (every runtime): it stops, silently, when `signal` aborts (the client
 * went away) or the consumer cancels it.
 */
export function readableOf(stream: PreparedViewStream, signal: AbortSignal): ReadableStream<Uint8Array> {
  let closeController = (): void => undefined;
  const onAbort = (): void => {
    stream.stop();
    closeController();
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false;
      closeController = () => {
        if (closed) return;
        closed = true;
        signal.removeEventListener('abort', onAbort);
        try {
          controller.close();
        } catch {
          // Already closed or errored by the consumer.
        }
      };
      stream.start({ write: (bytes) => controller.enqueue(bytes), end: closeController });
      if (closed) return;
      signal.addEventListener('abort', onAbort, { once: true });
      if (signal.aborted) onAbort();
    },
    cancel() {
      signal.removeEventListener('abort', onAbort);
      stream.stop();
    },
  });
}
