import { z } from 'zod';

/**
 * The host a code's SMS is bound to (`example.com`): the site whose pages may receive the code (WebOTP, iOS and
 * macOS autofill). A DNS name only, checked so that nothing else can reach the message's last line: ASCII letters,
 * digits and hyphens in dot-separated labels of 1 to 63, at least two labels, at most 253 characters, not an IP
 * address; no scheme, port, path, space, `@` or `#`. An internationalised name is written in its `xn--` form.
 * Lower-cased.
 */
export const originBoundHostSchema = z
  .string({ error: 'must be a string' })
  .max(253, { error: 'must be at most 253 characters', abort: true })
  .refine(
    (host) =>
      /^[A-Za-z0-9-]{1,63}(\.[A-Za-z0-9-]{1,63})+$/.test(host) &&
      host.split('.').every((label) => !label.startsWith('-') && !label.endsWith('-')) &&
      !/^\d+$/.test(host.split('.').at(-1)!),
    {
      error:
        'must be a host name such as example.com: ASCII letters, digits and hyphens in labels separated by dots (an internationalised name in its xn-- form), with no scheme, port, path, space, @ or #',
    },
  )
  .transform((host) => host.toLowerCase());

/**
 * An Android app's SMS Retriever hash: 11 characters of base64 (`FA+9qCX9VSu`), computed from the app's package
 * name and signing certificate (Google's "Computing your app's hash string").
 */
export const androidAppHashSchema = z
  .string({ error: 'must be a string' })
  .regex(/^[A-Za-z0-9+/]{11}$/, { error: "must be the app's 11-character hash (letters, digits, + and /)" });

/** What a code's SMS carries besides its text: the origin line, and an Android app's hash. */
export interface OriginBoundSettings {
  /** The host the code is bound to: the message ends with `@host #code`. */
  readonly host?: string;
  /** An Android app's SMS Retriever hash, at the end of the message. */
  readonly appHash?: string;
}

/**
 * The text of a code's SMS with what `settings` asks for, `code` being the code or the provider's placeholder
 * for it: `text`, a blank line, then `@host #code` (the origin-bound format, always the last line), with the app
 * hash after it on the same line (trailing text the format ignores), or alone on the last line without a host.
 * The text as it is when `settings` asks for nothing.
 *
 * @example
 * originBoundText('Your code is < 1234 >', '< 1234 >', { host: 'example.com' });
 * // "Your code is < 1234 >\n\n@example.com #< 1234 >"
 */
export function originBoundText(text: string, code: string, settings: OriginBoundSettings): string {
  const { host, appHash } = settings;
  if (host !== undefined) return `${text}\n\n@${host} #${code}${appHash === undefined ? '' : ` ${appHash}`}`;
  return appHash === undefined ? text : `${text}\n\n${appHash}`;
}

// GSM 03.38: the basic set (one septet each) and the extension table (an escape and a septet: two).
const gsmBasic = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);
const gsmExtension = new Set('^{}\\[~]|€\f');

/**
 * Whether `text` fits in one SMS: 160 septets in GSM-7 (an extension character such as `{` or `€` takes two), or
 * 70 UTF-16 units when any character is outside GSM-7 (UCS-2). Both are 140 bytes, the single message that
 * Android's SMS Retriever requires and that an operator never splits.
 */
export function fitsOneSms(text: string): boolean {
  let septets = 0;
  for (const character of text) {
    if (gsmBasic.has(character)) septets += 1;
    else if (gsmExtension.has(character)) septets += 2;
    else return text.length <= 70;
  }
  return septets <= 160;
}
