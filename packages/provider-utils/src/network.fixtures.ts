import { createServer } from 'node:net';
import { startMisbehavingServer, type MisbehavingServer } from '@verikit/testing';

/** A port nothing listens on: bound, then released. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A server that reads requests and never answers: every request left, and its outcome is unknown. */
export function startSilentServer(): Promise<MisbehavingServer> {
  // The longest timer Node takes (about 24 days): the answer never comes within a test.
  return startMisbehavingServer({ kind: 'late', delayMs: 2_147_483_647, body: '{}' });
}
