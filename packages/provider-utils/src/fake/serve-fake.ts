import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { FakeInboxSource } from './inbox/fake-inbox-source.js';
import { createInboxHandler, inboxPath } from './inbox/inbox-handler.js';
import { refuseForeignControl } from './loopback-request.js';

/** A fake provider API listening on 127.0.0.1. */
export interface FakeServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The port bound, useful when 0 was asked for. */
  readonly port: number;
  /** The inbox page, `http://127.0.0.1:<port>/__inbox`, when the fake was given an inbox source. */
  readonly inboxUrl: string | undefined;
  /**
   * The handler the server serves (inbox page included), to call in process without a socket: the carrier
   * simulator's fast mode hands a provider's requests to it through the provider's `fetch` setting.
   */
  readonly fetch: (request: Request) => Response | Promise<Response>;
  /** Stops the server and drops open connections. */
  close(): Promise<void>;
}

/**
 * Serves a Web-standard handler on 127.0.0.1 (port 0: a free one) through @hono/node-server. With an inbox
 * source, `/__inbox` serves the inbox page: what the fake's phones received, live (docs/sandbox.md). The control
 * endpoints (`/__sandbox/…`, `/__fake/…`) have the inbox's protections: a loopback `Host`, and no foreign `Origin`.
 */
export async function serveFake(
  fetch: (request: Request) => Response | Promise<Response>,
  port = 0,
  inbox?: FakeInboxSource,
): Promise<FakeServer> {
  let bound = 0;
  const inboxHandler = inbox === undefined ? undefined : createInboxHandler(inbox, () => bound);
  const handle = (request: Request) =>
    refuseForeignControl(request, bound) ?? inboxHandler?.(request) ?? fetch(request);
  const server = await new Promise<ServerType>((resolve, reject) => {
    const started = serve({ fetch: handle, hostname: '127.0.0.1', port }, () => resolve(started));
    started.once('error', reject);
  });
  bound = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    inboxUrl: inbox === undefined ? undefined : `http://127.0.0.1:${bound}${inboxPath}`,
    fetch: handle,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ('closeAllConnections' in server) server.closeAllConnections();
      });
      return closing;
    },
  };
}
