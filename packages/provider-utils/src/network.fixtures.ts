import { createServer, type Socket } from 'node:net';

/** A port nothing listens on: bound, then released. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A server that reads requests and never answers: every request left, and its outcome is unknown. */
export async function startSilentServer(): Promise<{
  url: string;
  received: () => number;
  close: () => Promise<void>;
}> {
  const sockets = new Set<Socket>();
  let received = 0;
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once('data', () => {
      received += 1;
    });
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    received: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
