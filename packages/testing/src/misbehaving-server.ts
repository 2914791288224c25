import { createServer, type Socket } from 'node:net';

/**
 * How a {@link startMisbehavingServer} answers every request, once it has read it whole (the request left):
 * - `late`: a 200 with `body`, after `delayMs` (longer than the client's timeout: the send happened, the
 *   client gave up);
 * - `reset`: no answer; the connection is reset (a TCP RST);
 * - `status`: an answer with `status` and `body` at once (500: the provider says the call failed).
 */
export type Misbehaviour =
  | {
      /** Answer 200, too late. */
      readonly kind: 'late';
      /** How long after reading the request, in ms. */
      readonly delayMs: number;
      /** The answer's JSON body. */
      readonly body: string;
    }
  | {
      /** Reset the connection instead of answering. */
      readonly kind: 'reset';
    }
  | {
      /** Answer at once with `status`. */
      readonly kind: 'status';
      /** The HTTP status. */
      readonly status: number;
      /** The answer's JSON body. */
      readonly body: string;
    };

/** A server on 127.0.0.1 that fails as a real provider's network can. */
export interface MisbehavingServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Requests read whole so far (each one left the client). */
  received(): number;
  /** Stops the server and drops open connections. */
  close(): Promise<void>;
}

/** Whether `buffer` holds a whole HTTP/1.1 request (headers, and a body as long as `content-length`). */
function isWholeRequest(buffer: string): boolean {
  const end = buffer.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(buffer.slice(0, end))?.[1];
  return Buffer.byteLength(buffer.slice(end + 4)) >= Number(length ?? 0);
}

function answer(socket: Socket, status: number, body: string): void {
  socket.end(
    `HTTP/1.1 ${status} X\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
      `connection: close\r\n\r\n${body}`,
  );
}

/**
 * Starts a server that reads each request whole, then misbehaves as `behaviour` says: what the
 * "maybe sent" tests of every provider run against (a late answer, a reset, a 500), on the real wire.
 */
export async function startMisbehavingServer(behaviour: Misbehaviour): Promise<MisbehavingServer> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let received = 0;
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffer = '';
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      if (!isWholeRequest(buffer)) return;
      buffer = '';
      received += 1;
      if (behaviour.kind === 'reset') socket.resetAndDestroy();
      else if (behaviour.kind === 'status') answer(socket, behaviour.status, behaviour.body);
      else {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!socket.destroyed) answer(socket, 200, behaviour.body);
        }, behaviour.delayMs);
        timers.add(timer);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    received: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** What {@link callAgainst} saw: the call's result or error, and how many requests the server read. */
export interface CallAgainstOutcome<T> {
  /** The call's result, when it resolved. */
  readonly result?: T;
  /** What the call threw, when it failed. */
  readonly error?: unknown;
  /** Requests the server read whole (each one left the client). */
  readonly received: number;
}

/**
 * Starts a {@link startMisbehavingServer} for `behaviour`, runs `call` with its URL (build the provider there),
 * and closes it: one provider call against a failing wire, for the tests of every provider.
 */
export async function callAgainst<T>(
  behaviour: Misbehaviour,
  call: (url: string) => Promise<T>,
): Promise<CallAgainstOutcome<T>> {
  const server = await startMisbehavingServer(behaviour);
  try {
    const outcome = await call(server.url).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    return { ...outcome, received: server.received() };
  } finally {
    await server.close();
  }
}
