import { isIP } from 'node:net';
import { InvalidInputError, type Logger } from '@verikit/provider';
import type { RouteRequest } from './routes/route-request.js';

/**
 * Names the client a request comes from, for the send guard's per-client limit (docs/abuse.md).
 * `address` is the client address the server saw (IPv6 grouped per /64), when the adapter knows it
 * (`toNodeHandler`, @hono/node-server's bindings, or {@link toHonoHandler}). Return undefined to
 * leave the request out of the per-client limit.
 */
export type ClientKeyFunction = (
  request: Request,
  address: string | undefined,
) => string | undefined | Promise<string | undefined>;

/** The client address in the server's bindings: `{ clientAddress }` (toHonoHandler) or `{ incoming }` (node). */
export function peerAddressOf(env: unknown): string | undefined {
  if (typeof env !== 'object' || env === null) return undefined;
  const given = (env as { clientAddress?: unknown }).clientAddress;
  if (typeof given === 'string' && given !== '') return given;
  const address = (env as { incoming?: { socket?: { remoteAddress?: unknown } } }).incoming?.socket?.remoteAddress;
  return typeof address === 'string' && address !== '' ? address : undefined;
}

/** The last `X-Forwarded-For` entry (the address the proxy in front saw); junk there is refused. */
function forwardedAddressOf(request: RouteRequest): string | undefined {
  const header = request.header('x-forwarded-for');
  if (header === undefined) return undefined;
  const last = header.split(',').at(-1)?.trim() ?? '';
  if (isIP(last.replace(/^\[|\]$/g, '')) === 0) {
    throw new InvalidInputError([
      { field: 'x-forwarded-for', message: 'must end with the client address your proxy appends' },
    ]);
  }
  return last.replace(/^\[|\]$/g, '');
}

/** The eight 16-bit groups of an IPv6 address (zone dropped, an IPv4 tail converted). */
function ipv6Groups(address: string): number[] {
  let text = address.split('%')[0]!.toLowerCase();
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4 !== null) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const middle = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  return [...left, ...middle, ...right].map((group) => Number.parseInt(group, 16));
}

/**
 * The key of a client address: an IPv4 address as is (an IPv4-mapped IPv6 address too), an IPv6
 * address by its first `ipv6PrefixBits` bits (a /64 is one subscriber: one network hands out all of
 * it). Undefined for anything that is not an address.
 */
export function clientAddressKey(address: string, ipv6PrefixBits: number): string | undefined {
  const bare = address.replace(/^\[|\]$/g, '').split('%')[0]!;
  const version = isIP(bare);
  if (version === 4) return bare;
  if (version !== 6) return undefined;
  const groups = ipv6Groups(bare);
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255].join('.');
  }
  const kept = groups.map((group, index) => {
    const bits = Math.max(0, Math.min(16, ipv6PrefixBits - index * 16));
    return bits === 0 ? 0 : group & ((0xffff << (16 - bits)) & 0xffff);
  });
  return `${kept.map((group) => group.toString(16)).join(':')}/${ipv6PrefixBits}`;
}

/**
 * The client key of each request: the application's `clientKey`, else the client address (with
 * `trustProxy`, the last `X-Forwarded-For` entry), IPv6 grouped per `ipv6PrefixBits`. A request
 * whose client is unknown is left out of the per-client limit, never counted in one shared bucket
 * (one client would block everyone): one warning says so, the first time.
 */
export function clientKeyResolver(options: {
  clientKey: ClientKeyFunction | undefined;
  trustProxy: boolean;
  ipv6PrefixBits: number;
  logger: Logger;
}): (request: RouteRequest) => Promise<string | undefined> {
  const { clientKey, trustProxy, ipv6PrefixBits, logger } = options;
  let warned = false;
  return async (request) => {
    const raw = (trustProxy ? forwardedAddressOf(request) : undefined) ?? peerAddressOf(request.env);
    const address = raw === undefined ? undefined : clientAddressKey(raw, ipv6PrefixBits);
    if (clientKey !== undefined) {
      const key = await clientKey(request.web, address);
      if (key === undefined || (typeof key === 'string' && key.length >= 1 && key.length <= 512)) return key;
      throw new TypeError('clientKey must return a string of 1 to 512 characters, or undefined');
    }
    if (address !== undefined) return address;
    if (!warned) {
      warned = true;
      logger.warn('verikit.guard.no-client-address', {
        hint: 'the flow handler was called without the client address: the per-client limit is skipped. Serve it with toNodeHandler, @hono/node-server, or toHonoHandler(handler, { getConnInfo })',
      });
    }
    return undefined;
  };
}
