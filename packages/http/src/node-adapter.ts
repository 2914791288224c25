import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';

/** A node:http request listener. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** Options of {@link toNodeHandler}. */
export interface NodeHandlerOptions {
  /** Called when the handler throws (it should not: the flow handler answers every error itself). */
  onError?: (error: unknown) => void;
}

/** Bytes of request body buffered ahead of the handler before node:http is paused. */
const bodyHighWaterMark = 64 * 1024;
const hostPattern = /^[A-Za-z0-9.:[\]_-]{1,255}$/;

/**
 * Serves a Web-standard `(Request) => Promise<Response>` handler with node:http (or an Express or
 * Connect app, as a last middleware). It only converts:
 * - the request becomes a Web `Request` whose body streams from the socket (nothing is buffered
 *   beyond what the handler reads) and whose `signal` aborts when the client disconnects;
 * - the response body streams back chunk by chunk with backpressure, so server-sent events reach
 *   the client as they are written, and the body is cancelled when the client goes away.
 *
 * A body the handler stops reading (too large) is drained and dropped, so the client still
 * receives the answer and the connection stays usable; node:http's `requestTimeout` bounds how
 * long a sender may keep sending.
 *
 * @example
 * import { createServer } from 'node:http';
 * createServer(toNodeHandler(createFlowHandler({ verikit }))).listen(3000);
 */
export function toNodeHandler(handler: (request: Request) => Promise<Response>, options: NodeHandlerOptions = {}): NodeHandler {
  return (req, res) => {
    void serve(handler, req, res, options);
  };
}

async function serve(handler: (request: Request) => Promise<Response>, req: IncomingMessage, res: ServerResponse, options: NodeHandlerOptions): Promise<void> {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  let response: Response;
  try {
    response = await handler(toRequest(req, controller.signal));
  } catch (error) {
    report(options, error);
    if (!res.headersSent) {
      res.writeHead(500, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
      res.end(JSON.stringify({ error: { name: 'InternalError', code: 'internal_error', message: 'internal error', isRetryable: true } }));
    } else {
      res.destroy();
    }
    return;
  }
  try {
    await writeResponse(response, req, res, controller.signal);
  } catch (error) {
    report(options, error);
    res.destroy();
  }
}

function report(options: NodeHandlerOptions, error: unknown): void {
  try {
    options.onError?.(error);
  } catch {
    // A failing logger must not take the server down.
  }
}

/** The Web `Request` for a node:http request. */
export function toRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const method = req.method ?? 'GET';
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = raw[index]!;
    if (name.startsWith(':')) continue;
    try {
      headers.append(name, raw[index + 1]!);
    } catch {
      // A header value Fetch refuses is dropped; node:http has already refused the worst.
    }
  }
  const init: RequestInit & { duplex?: 'half' } = { method, headers, signal };
  if (method !== 'GET' && method !== 'HEAD') {
    init.body = bodyOf(req);
    init.duplex = 'half';
  }
  return new Request(urlOf(req), init);
}

function urlOf(req: IncomingMessage): string {
  const protocol = (req.socket as Partial<TLSSocket>).encrypted === true ? 'https' : 'http';
  const host = req.headers.host !== undefined && hostPattern.test(req.headers.host) ? req.headers.host : 'localhost';
  const target = req.url ?? '/';
  if (target.startsWith('/')) {
    try {
      return new URL(`${protocol}://${host}${target}`).href;
    } catch {
      return `${protocol}://${host}/`;
    }
  }
  try {
    return new URL(target).href;
  } catch {
    return `${protocol}://${host}/`;
  }
}

/** The request body as a Web stream, pulled from node:http with backpressure; cancelling it drains and drops the rest. */
function bodyOf(req: IncomingMessage): ReadableStream<Uint8Array> {
  let detach = (): void => {};
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const onData = (chunk: Buffer): void => {
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        };
        const onEnd = (): void => {
          detach();
          controller.close();
        };
        const onError = (error: Error): void => {
          detach();
          controller.error(error);
        };
        detach = () => {
          req.off('data', onData);
          req.off('end', onEnd);
          req.off('error', onError);
        };
        req.on('data', onData);
        req.on('end', onEnd);
        req.on('error', onError);
      },
      pull() {
        req.resume();
      },
      cancel() {
        detach();
        req.resume();
      },
    },
    { highWaterMark: bodyHighWaterMark, size: (chunk) => chunk.byteLength },
  );
}

async function writeResponse(response: Response, req: IncomingMessage, res: ServerResponse, signal: AbortSignal): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  const body = response.body;
  if (body === null || req.method === 'HEAD') {
    await body?.cancel().catch(() => undefined);
    res.writeHead(response.status, headers);
    res.end();
    return;
  }
  const reader = body.getReader();
  const onAbort = () => {
    reader.cancel().catch(() => undefined);
  };
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) onAbort();
  try {
    // A body that is complete at once (every JSON answer) goes out in one write with a Content-Length;
    // anything slower (server-sent events) gets its headers at once and then each chunk as it comes.
    const first = await readSoon(reader);
    if (!first.settled) {
      res.writeHead(response.status, headers);
      res.flushHeaders();
    }
    const firstChunk = first.settled ? first.result : await first.read;
    if (firstChunk.done) {
      if (!res.headersSent) res.writeHead(response.status, { ...headers, 'content-length': '0' });
      res.end();
      return;
    }
    const second = res.headersSent ? undefined : await readSoon(reader);
    if (second?.settled === true && second.result.done) {
      res.writeHead(response.status, { ...headers, 'content-length': String(firstChunk.value.byteLength) });
      res.end(firstChunk.value);
      return;
    }
    if (!res.headersSent) res.writeHead(response.status, headers);
    if (!res.write(firstChunk.value)) await drained(res);
    let next = second === undefined ? await reader.read() : second.settled ? second.result : await second.read;
    while (!next.done) {
      if (res.destroyed) {
        await reader.cancel().catch(() => undefined);
        return;
      }
      if (!res.write(next.value)) await drained(res);
      next = await reader.read();
    }
    res.end();
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

type ReadResult = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>>;

type ReadSoon =
  | { readonly settled: true; readonly result: ReadResult }
  | { readonly settled: false; readonly read: Promise<ReadResult> };

/** The next read, telling whether it settled within this turn of the event loop. */
async function readSoon(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<ReadSoon> {
  const read = reader.read();
  const result = await Promise.race([read, new Promise<undefined>((resolve) => setImmediate(() => resolve(undefined)))]);
  return result === undefined ? { settled: false, read } : { settled: true, result };
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}
