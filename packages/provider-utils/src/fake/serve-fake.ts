import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';

/** A fake provider API listening on 127.0.0.1. */
export interface FakeServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The port bound, useful when 0 was asked for. */
  readonly port: number;
  /** Stops the server and drops open connections. */
  close(): Promise<void>;
}

/** Serves a Web-standard handler on 127.0.0.1 (port 0: a free one) through @hono/node-server. */
export async function serveFake(
  fetch: (request: Request) => Response | Promise<Response>,
  port = 0,
): Promise<FakeServer> {
  const server = await new Promise<ServerType>((resolve, reject) => {
    const started = serve({ fetch, hostname: '127.0.0.1', port }, () => resolve(started));
    started.once('error', reject);
  });
  const bound = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ('closeAllConnections' in server) server.closeAllConnections();
      });
      return closing;
    },
  };
}
