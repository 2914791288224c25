import type { Context } from 'hono';
import type { FlowHandler } from '../flow-handler-options.js';

/** Options of {@link toHonoHandler}. */
export interface HonoHandlerOptions {
  /**
   * Your runtime's `getConnInfo` (from `hono/bun`, `hono/deno`, `hono/cloudflare-workers` or
   * `@hono/node-server/conninfo`): how the handler learns the client address for its per-client
   * limits. Without it, only @hono/node-server's bindings are read.
   */
  getConnInfo?: (c: Context) => ConnInfoLike;
}

/** What {@link HonoHandlerOptions.getConnInfo} returns that is read: Hono's `ConnInfo`. */
export interface ConnInfoLike {
  /** The remote end of the connection. */
  remote: {
    /** The client address, when the runtime knows it. */
    address?: string | undefined;
  };
}

/**
 * The flow handler as a Hono handler that passes the client address along, so the per-client limits
 * hold without code of yours: `app.all('/api/verify/*', toHonoHandler(handler, { getConnInfo }))`.
 */
export function toHonoHandler(
  handler: FlowHandler,
  options: HonoHandlerOptions = {},
): (c: Context) => Promise<Response> {
  return (c) => {
    const address = options.getConnInfo?.(c).remote.address;
    const env = address === undefined ? c.env : { ...(c.env as object | undefined), clientAddress: address };
    return handler(c.req.raw, env);
  };
}
