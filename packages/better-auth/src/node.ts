/**
 * `@verikit/better-auth/node`: `toNodeHandler(auth)`, the drop-in for `better-auth/node`'s, that also hands the
 * plugin's flow routes the address of the connection each request came on, so the send guard counts sends per
 * client by default (docs/integrations/better-auth.md).
 *
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toNodeHandler as betterAuthNodeHandler } from 'better-auth/node';
import { setPeerAddressSource } from './peer-address.js';

const connectionAddress = new AsyncLocalStorage<string | undefined>();

/**
 * Better Auth's node handler (`toNodeHandler` of `better-auth/node`), run with the request's socket address in
 * reach of the verikit plugin: the flow routes count sends against it, never against a header the client could
 * write (behind a proxy, see `trustProxy` and Better Auth's `advanced.ipAddress`).
 *
 * @example
 * createServer(toNodeHandler(auth)).listen(3000);
 * app.all('/api/auth/*splat', toNodeHandler(auth)); // Express
 */
export function toNodeHandler(
  auth: { handler: (request: Request) => Promise<Response> } | ((request: Request) => Promise<Response>),
): (request: IncomingMessage, response: ServerResponse) => Promise<void> {
  setPeerAddressSource(() => connectionAddress.getStore());
  const handler = betterAuthNodeHandler(auth);
  return (request, response) => connectionAddress.run(request.socket.remoteAddress, () => handler(request, response));
}
