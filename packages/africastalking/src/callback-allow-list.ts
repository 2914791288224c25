import { BlockList, isIP } from 'node:net';
import { InvalidInputError } from '@verikit/provider';

/** Checks the address a callback came from against the addresses the application was told to expect. */
export interface CallbackAllowList {
  /** True when `address` (an IPv4 or IPv6 address, as the socket reports it) is in the list. */
  allows(address: string | undefined): boolean;
}

/** The most entries a list takes: it names a provider's few callback addresses, not the internet. */
const maxEntries = 64;

/**
 * An allow-list of the addresses Africa's Talking calls back from. Africa's Talking signs no callback (see
 * docs/security.md), so the address is one of the two checks a dial-in flow relies on, beside the one-time
 * reference the user types. There is no default list: ask Africa's Talking for its current addresses and pass
 * them here (single addresses or CIDR ranges, IPv4 or IPv6). An empty, malformed or overly wide list is refused
 * with an `InvalidInputError`, so a mistake never opens the route to everyone.
 *
 * Pass the address of the TCP peer; read a forwarded header only when your own proxy sets it.
 *
 * @example
 * const allowList = createCallbackAllowList(process.env.AFRICASTALKING_CALLBACK_ADDRESSES!.split(','));
 * if (!allowList.allows(request.socket.remoteAddress)) return new Response(null, { status: 403 });
 */
export function createCallbackAllowList(entries: readonly string[]): CallbackAllowList {
  if (!Array.isArray(entries) || entries.length === 0 || entries.length > maxEntries)
    throw new InvalidInputError([
      { field: 'entries', message: `must list 1 to ${maxEntries} addresses or CIDR ranges` },
    ]);
  const list = new BlockList();
  entries.forEach((raw, index) => {
    const entry = typeof raw === 'string' ? raw.trim() : '';
    const [address = '', prefixText] = entry.split('/');
    const family = isIP(address);
    const prefix = prefixText === undefined ? undefined : Number(prefixText);
    const widest = family === 6 ? 32 : 16;
    const longest = family === 6 ? 128 : 32;
    if (
      family === 0 ||
      (prefix !== undefined && !(Number.isInteger(prefix) && prefix >= widest && prefix <= longest))
    ) {
      throw new InvalidInputError([
        {
          field: `entries.${index}`,
          message: `must be an IP address, or a CIDR range no wider than /${widest} for IPv${family === 6 ? 6 : 4}`,
        },
      ]);
    }
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, prefix, type);
  });
  return {
    allows(address) {
      if (typeof address !== 'string') return false;
      // An IPv4 peer on a dual-stack socket is reported as ::ffff:a.b.c.d.
      const plain = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
      const family = isIP(plain);
      if (family === 0) return false;
      return list.check(plain, family === 6 ? 'ipv6' : 'ipv4');
    },
  };
}
