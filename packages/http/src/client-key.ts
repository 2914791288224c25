import type { Logger } from '@verikit/provider';

/**
 * Names the client a request comes from, for the send guard's per-client limit (docs/abuse.md).
 * `address` is the peer address the server saw, when the adapter knows it (`toNodeHandler`, or
 * @hono/node-server's bindings passed as the handler's second argument). Return undefined to leave
 * the request out of the per-client limit.
 */
export type ClientKeyFunction = (
  request: Request,
  address: string | undefined,
) => string | undefined | Promise<string | undefined>;

/** The one key of every request whose client is unknown: they share one per-client count. */
const unidentifiedClient = 'unidentified';

/** The peer address in @hono/node-server's bindings (`{ incoming }`, a node `IncomingMessage`), read without trusting their shape. */
function peerAddressOf(env: unknown): string | undefined {
  const incoming =
    typeof env === 'object' && env !== null
      ? (env as { incoming?: { socket?: { remoteAddress?: unknown } } }).incoming
      : undefined;
  const address = incoming?.socket?.remoteAddress;
  return typeof address === 'string' && address !== '' ? address : undefined;
}

/** The last `X-Forwarded-For` entry: the address the proxy in front of this server saw. */
function forwardedAddressOf(request: Request): string | undefined {
  const last = request.headers.get('x-forwarded-for')?.split(',').at(-1)?.trim();
  return last !== undefined && /^[0-9A-Fa-f.:[\]]{2,64}$/.test(last) ? last : undefined;
}

/**
 * The client key of each request: the application's `clientKey`, else the peer address (with
 * `trustProxy`, the last `X-Forwarded-For` entry first), else {@link unidentifiedClient}, with one
 * warning in the engine's log, since every such request then shares one count.
 */
export function clientKeyResolver(options: {
  clientKey: ClientKeyFunction | undefined;
  trustProxy: boolean;
  logger: Logger;
}): (request: Request, env: unknown) => Promise<string | undefined> {
  const { clientKey, trustProxy, logger } = options;
  let warned = false;
  return async (request, env) => {
    const address = (trustProxy ? forwardedAddressOf(request) : undefined) ?? peerAddressOf(env);
    if (clientKey !== undefined) {
      const key = await clientKey(request, address);
      if (key === undefined || (typeof key === 'string' && key.length >= 1 && key.length <= 512)) return key;
      throw new TypeError('clientKey must return a string of 1 to 512 characters, or undefined');
    }
    if (address !== undefined) return address;
    if (!warned) {
      warned = true;
      logger.warn('verikit.guard.no-client-address', { fallback: unidentifiedClient });
    }
    return unidentifiedClient;
  };
}
