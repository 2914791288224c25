/**
 * An origin-bound one-time code read from a message's last line: `@example.com #747723`, optionally followed by
 * ` @embedded.example` (the WICG format, `REFERENCE.md` beside this file).
 */
export interface OriginBoundCode {
  /** The host of the top-level site the code is for (`example.com`). */
  readonly host: string;
  /** The code. */
  readonly code: string;
  /** The host of the embedded site (an iframe), when the line names one. */
  readonly embeddedHost?: string;
}

/** A token marked with `marker` at `position`: the code points up to the next ASCII whitespace; undefined when absent. */
function markedToken(line: string, position: number, marker: string): { token: string; end: number } | undefined {
  if (line[position] !== marker) return undefined;
  let end = position + 1;
  while (end < line.length && !/[\t\n\f\r ]/.test(line[end]!)) end += 1;
  return end === position + 1 ? undefined : { token: line.slice(position + 1, end), end };
}

/**
 * Parses an origin-bound one-time code message as the WICG draft says ("parse an origin-bound one-time code
 * message"): the last line (after CRLF and CR become LF) must start with `@host`, then exactly one space and
 * `#code`; ` @embedded` may follow; anything after that is ignored. Undefined when the message is not one: the
 * code of a message without the line is for no site in particular.
 *
 * @example
 * parseOriginBoundCode('747723 is your code.\n\n@example.com #747723'); // { host: 'example.com', code: '747723' }
 */
export function parseOriginBoundCode(message: string): OriginBoundCode | undefined {
  const line = message.replace(/\r\n?/g, '\n').split('\n').at(-1)!;
  const host = markedToken(line, 0, '@');
  if (host === undefined || line[host.end] !== ' ') return undefined;
  const code = markedToken(line, host.end + 1, '#');
  if (code === undefined) return undefined;
  const embedded = line[code.end] === ' ' ? markedToken(line, code.end + 1, '@') : undefined;
  return {
    host: host.token,
    code: code.token,
    ...(embedded === undefined ? {} : { embeddedHost: embedded.token }),
  };
}

/**
 * Whether a code bound to `bound` may be given to a page on `pageHost`: the same host, or a page on a subdomain of
 * it (`www.example.com` for `example.com`), as the draft's "same site" allows. Hosts compare without regard to case;
 * a single-label host (`com`) matches only itself.
 */
export function isCodeForHost(bound: string, pageHost: string): boolean {
  const code = bound.toLowerCase();
  const page = pageHost.toLowerCase();
  if (code === page) return true;
  return code.includes('.') && page.endsWith(`.${code}`);
}
