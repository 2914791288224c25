import { startFailureMessage } from './start-failure.js';

/**
 * The server side of every example's `start` command: starts the server, and stops it on Ctrl-C or SIGTERM. A start
 * that fails (a port in use, a malformed setting) prints one line, `name: why`, and exits 1. Ctrl-C closes the server
 * and exits 0: the handlers stay in place while it closes, since a terminal's Ctrl-C reaches every process of the
 * group and pnpm passes it on too; a second signal must not end the process "by signal", which pnpm reports as a
 * failed run (decision 0800 for the CLI, 0981 for the examples).
 */
export async function serveUntilStopped<Server extends { close(): Promise<unknown> }>(
  name: string,
  start: () => Promise<Server>,
): Promise<Server> {
  let server: Server | undefined;
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    if (server === undefined) process.exit(0);
    void server.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    server = await start();
  } catch (error) {
    console.error(`${name}: ${startFailureMessage(error)}`);
    process.exit(1);
  }
  return server;
}
