import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { parse, stringify } from 'node:querystring';
import { InvalidInputError } from '@verikit/provider';
import { baseUrlSchema, secretSchema, settingReader } from '@verikit/provider-utils';

/** A callback as received: the path and query Twilio called, the headers and the raw body. */
export interface TwilioCallback {
  /** The request's path and query, e.g. `/twilio/status?flow=1`, as your server saw it. */
  readonly path: string;
  /** The request headers by lower-case name: `x-twilio-signature` is read from them. */
  readonly headers: Readonly<Record<string, string>>;
  /** The raw body exactly as received. */
  readonly body: string;
}

/** What {@link verifyTwilioSignature} checks. */
export interface TwilioSignatureInput {
  /** The auth token of the account Twilio signed with; never logged. */
  readonly authToken: string;
  /** The full public URL Twilio called (scheme, host, path and query), exactly as configured at Twilio. */
  readonly url: string;
  /** The raw body: form fields for a form POST, or the JSON text when the URL carries `bodySHA256`. */
  readonly body: string;
  /** The `X-Twilio-Signature` header. */
  readonly signature: string | undefined;
}

function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The URL as written without a port and with one (the scheme's default when it has none); nothing else changed. */
function portVariants(url: string): readonly string[] {
  const match = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)/i.exec(url);
  if (match === null) return [url];
  const [prefix, scheme, authority] = match as unknown as [string, string, string];
  const rest = url.slice(prefix.length);
  const hostStart = authority.lastIndexOf('@') + 1;
  const colon = authority.indexOf(':', Math.max(hostStart, authority.lastIndexOf(']') + 1));
  const host = colon === -1 ? authority : authority.slice(0, colon);
  const withPort = colon === -1 ? `${host}${scheme.toLowerCase() === 'https://' ? ':443' : ':80'}` : authority;
  return [scheme + host + rest, scheme + withPort + rest];
}

/** The query re-encoded as Node's legacy `querystring` does, for senders that signed that form. */
function legacyQuery(url: string): string {
  const at = url.indexOf('?');
  return at === -1 || at === url.length - 1 ? url : `${url.slice(0, at)}?${stringify(parse(url.slice(at + 1)))}`;
}

/**
 * The URLs Twilio may have signed for a configured URL, in the order twilio-node's `validateRequest`
 * tries them: as written, without and with the port; then as `new URL()` normalises it, without and with
 * the port, each also with its query re-encoded the legacy way.
 */
function signedUrlCandidates(url: string): readonly string[] {
  const normalised = portVariants(new URL(url).href);
  return [...new Set([...portVariants(url), ...normalised, ...normalised.map(legacyQuery)])];
}

/** Each form parameter name, sorted, followed by its distinct values, sorted, as name+value pairs. */
function signedParameters(body: string): string {
  const values = new Map<string, Set<string>>();
  for (const [key, value] of new URLSearchParams(body)) {
    const seen = values.get(key) ?? new Set<string>();
    values.set(key, seen.add(value));
  }
  const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  let signed = '';
  for (const key of [...values.keys()].sort(byCodeUnit)) {
    for (const value of [...values.get(key)!].sort(byCodeUnit)) signed += key + value;
  }
  return signed;
}

/**
 * Checks `X-Twilio-Signature` as Twilio's security page describes it: base64 of HMAC-SHA1, keyed with the auth
 * token, over the full URL followed, for a form POST, by each parameter name and value sorted by name (a
 * repeated parameter's distinct values sorted too). When the URL carries `bodySHA256` (JSON callbacks), the
 * signature covers the URL alone and the body must hash to it. Like twilio-node's `validateRequest`, the URL
 * is tried without and with its port (`:443`/`:80` added when it has none), since Twilio signs either form;
 * the fixture in packages/twilio/conformance/ holds twilio-node's own verdicts. Compared in constant time.
 */
export function verifyTwilioSignature(input: TwilioSignatureInput): boolean {
  if (typeof input.signature !== 'string' || input.signature.length === 0 || input.signature.length > 200) return false;
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    return false;
  }
  const bodyHash = url.searchParams.get('bodySHA256');
  let parameters = '';
  if (bodyHash !== null) {
    if (!safeEqual(createHash('sha256').update(input.body).digest('hex'), bodyHash)) return false;
  } else {
    parameters = signedParameters(input.body);
  }
  const signature = input.signature;
  return signedUrlCandidates(input.url).some((candidate) =>
    safeEqual(
      createHmac('sha1', input.authToken)
        .update(candidate + parameters, 'utf8')
        .digest('base64'),
      signature,
    ),
  );
}

/** Options of {@link createTwilioSignatureVerifier}. */
export interface TwilioSignatureVerifierOptions {
  /** The public base URL Twilio calls (your app behind its proxy), e.g. `https://app.example.com`. */
  readonly publicUrl: string;
  /** The account's auth token. Default: `TWILIO_AUTH_TOKEN`, read at each call. */
  readonly authToken?: string;
}

/**
 * A verifier of Twilio callbacks that knows the public URL: behind a proxy your server sees
 * `http://10.0.0.5/twilio/status`, while Twilio signed `https://app.example.com/twilio/status`. Returns true
 * when the signature is Twilio's. Throws an `InvalidInputError` naming the option for bad options.
 *
 * @example
 * const verify = createTwilioSignatureVerifier({ publicUrl: 'https://app.example.com' });
 * if (!verify({ path: req.url, headers, body })) return new Response(null, { status: 403 });
 */
export function createTwilioSignatureVerifier(
  options: TwilioSignatureVerifierOptions,
): (callback: TwilioCallback) => boolean {
  if (typeof options !== 'object' || options === null)
    throw new InvalidInputError([{ field: 'input', message: 'must be an options object' }]);
  const publicUrl = baseUrlSchema.safeParse(options.publicUrl);
  if (!publicUrl.success)
    throw new InvalidInputError([
      { field: 'publicUrl', message: 'must be an http(s) URL without credentials, query or fragment' },
    ]);
  if (options.authToken !== undefined && !secretSchema.safeParse(options.authToken).success) {
    throw new InvalidInputError([{ field: 'authToken', message: 'must be 1 to 4096 visible ASCII characters' }]);
  }
  const authToken = settingReader({
    name: 'authToken',
    environmentVariable: 'TWILIO_AUTH_TOKEN',
    schema: secretSchema,
    value: options.authToken,
  });
  authToken();
  return (callback) => {
    if (typeof callback?.path !== 'string' || !callback.path.startsWith('/') || typeof callback.body !== 'string')
      return false;
    const signature = Object.entries(callback.headers ?? {}).find(
      ([key]) => key.toLowerCase() === 'x-twilio-signature',
    )?.[1];
    return verifyTwilioSignature({
      authToken: authToken(),
      url: publicUrl.data + callback.path,
      body: callback.body,
      signature,
    });
  };
}
