import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { parse, stringify } from 'node:querystring';
import { InvalidInputError, parseInput } from '@verikit/provider';
import { z } from 'zod';
import { baseUrlSchema, secretSchema, settingReader } from '@verikit/provider-utils';
import { callbackUrlSchema } from './twilio-format.js';

/** A callback as received: the path and query Twilio called, the headers and the raw body. */
export interface TwilioCallback {
  /** The request's path and query, e.g. `/twilio/status?flow=1`, as your server saw it. */
  readonly path: string;
  /**
   * The request headers: `x-twilio-signature` is read from them, and `x-twilio-webhooks-signature-settings`, which
   * says a webhook was signed with a SharedKey (any case of the names).
   */
  readonly headers: Readonly<Record<string, string>>;
  /** The raw body exactly as received. */
  readonly body: string;
}

/** What {@link verifyTwilioSignature} checks. */
export interface TwilioSignatureInput {
  /**
   * The key Twilio signed with; never logged: the account's auth token, or, for a webhook signed with a SharedKey
   * (it carries `X-Twilio-Webhooks-Signature-Settings`), that SharedKey's secret.
   */
  readonly authToken: string;
  /** The full public URL Twilio called (scheme, host, path and query), exactly as configured at Twilio. */
  readonly url: string;
  /** The raw body: form fields for a form POST, or the JSON text when the URL carries `bodySHA256`. */
  readonly body: string;
  /** The `X-Twilio-Signature` header. */
  readonly signature: string | undefined;
  /**
   * The HMAC: `HMAC_SHA1` (the default, the auth token's) or `HMAC_SHA256`, as the settings header names it, in any
   * case. Any other name is refused (`false`), never guessed.
   */
  readonly algorithm?: string;
}

/** Node's hash for a Twilio algorithm name (any case; none is HMAC_SHA1), or undefined for one Twilio does not use. */
function hashOf(algorithm: string | undefined): 'sha1' | 'sha256' | undefined {
  const name = algorithm === undefined || algorithm === '' ? 'HMAC_SHA1' : algorithm.toUpperCase();
  return name === 'HMAC_SHA1' ? 'sha1' : name === 'HMAC_SHA256' ? 'sha256' : undefined;
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
 * the fixture in packages/twilio/conformance/ holds twilio-node's own verdicts. With `algorithm: 'HMAC_SHA256'` the
 * same string is signed with HMAC-SHA256 (a SharedKey's webhooks). Compared in constant time.
 */
export function verifyTwilioSignature(input: TwilioSignatureInput): boolean {
  if (typeof input.signature !== 'string' || input.signature.length === 0 || input.signature.length > 200) return false;
  const hash = hashOf(input.algorithm);
  if (hash === undefined) return false;
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
      createHmac(hash, input.authToken)
        .update(candidate + parameters, 'utf8')
        .digest('base64'),
      signature,
    ),
  );
}

/** The reader of the auth token: the value given, else `TWILIO_AUTH_TOKEN` at each call; required. */
function twilioAuthToken(value: string | undefined): () => string {
  return settingReader({ name: 'authToken', environmentVariable: 'TWILIO_AUTH_TOKEN', schema: secretSchema, value });
}

/** The reader of the SharedKey secret: the value given, else `TWILIO_SHARED_KEY_SECRET` at each call, else none. */
function twilioSharedKeySecret(value: string | undefined): () => string | undefined {
  return settingReader<string | undefined>({
    name: 'sharedKeySecret',
    environmentVariable: 'TWILIO_SHARED_KEY_SECRET',
    schema: secretSchema,
    value,
    optional: true,
  });
}

/** A header by name, in any case of the name. */
function headerOf(headers: Readonly<Record<string, string>> | undefined, name: string): string | undefined {
  return Object.entries(headers ?? {}).find(([key]) => key.toLowerCase() === name)?.[1];
}

/**
 * The signing algorithm a webhook's `X-Twilio-Webhooks-Signature-Settings` names (`key=<SharedKey id>,algorithm=
 * HMAC_SHA256`): the value of its `algorithm=` part, else HMAC_SHA1. As twilio-node 6.3.1 reads it.
 */
function algorithmOf(settings: string): string {
  for (const part of settings.split(',')) {
    const equals = part.indexOf('=');
    if (equals !== -1 && part.slice(0, equals).trim() === 'algorithm') {
      const algorithm = part.slice(equals + 1).trim();
      if (algorithm !== '') return algorithm;
    }
  }
  return 'HMAC_SHA1';
}

/** What {@link verifyTwilioWebhook} checks: a callback as received, and the keys it may be signed with. */
export interface TwilioWebhookInput {
  /** The account's auth token: the key of a webhook without `X-Twilio-Webhooks-Signature-Settings`. Never logged. */
  readonly authToken: string;
  /**
   * The secret of the account's webhook SharedKey (Twilio's Webhooks API, `/v1/SharedKeys`): the key of a webhook
   * that carries `X-Twilio-Webhooks-Signature-Settings`. Without it, such a webhook is refused. Never logged.
   */
  readonly sharedKeySecret?: string | undefined;
  /** The full public URL Twilio called, exactly as configured at Twilio. */
  readonly url: string;
  /** The request headers (any case of the names). */
  readonly headers: Readonly<Record<string, string>>;
  /** The raw body exactly as received. */
  readonly body: string;
}

/**
 * Checks a Twilio webhook signed either way Twilio signs (twilio-node 6.3.1, 2026-11-18): without
 * `X-Twilio-Webhooks-Signature-Settings`, `X-Twilio-Signature` is the auth token's HMAC-SHA1; with it (a non-empty
 * value), the webhook was signed with a SharedKey: its secret is the key and the algorithm is the one the header
 * names (`HMAC_SHA256`, or `HMAC_SHA1` when it names none; any other is refused). A SharedKey webhook is refused
 * when no `sharedKeySecret` is given, and a header can only name an algorithm, never the key: an attacker who adds,
 * removes or edits it only changes which secret and HMAC must match. The signed string is the same for both
 * ({@link verifyTwilioSignature}); `packages/twilio/src/twilio-webhook-signature.conformance.test.ts` compares the
 * verdict with twilio-node's own over generated cases.
 */
export function verifyTwilioWebhook(input: TwilioWebhookInput): boolean {
  const settings = headerOf(input.headers, 'x-twilio-webhooks-signature-settings');
  const signature = headerOf(input.headers, 'x-twilio-signature');
  if (settings === undefined || settings === '')
    return verifyTwilioSignature({ authToken: input.authToken, url: input.url, body: input.body, signature });
  if (input.sharedKeySecret === undefined || settings.length > 1024) return false;
  return verifyTwilioSignature({
    authToken: input.sharedKeySecret,
    url: input.url,
    body: input.body,
    signature,
    algorithm: algorithmOf(settings),
  });
}

/** Options of {@link createTwilioSignatureVerifier}. */
export interface TwilioSignatureVerifierOptions {
  /** The public base URL Twilio calls (your app behind its proxy), e.g. `https://app.example.com`. */
  readonly publicUrl: string;
  /** The account's auth token. Default: `TWILIO_AUTH_TOKEN`, read at each call. */
  readonly authToken?: string;
  /**
   * The secret of the account's webhook SharedKey, for webhooks Twilio signs with it (HMAC-SHA256, named by
   * `X-Twilio-Webhooks-Signature-Settings`). Default: `TWILIO_SHARED_KEY_SECRET`, read at each call; none: such
   * webhooks are refused.
   */
  readonly sharedKeySecret?: string;
}

/**
 * A verifier of Twilio callbacks that knows the public URL: behind a proxy your server sees
 * `http://10.0.0.5/twilio/status`, while Twilio signed `https://app.example.com/twilio/status`. Returns true
 * when the signature is Twilio's, by the auth token or, for a webhook that names a SharedKey, by its secret
 * ({@link verifyTwilioWebhook}). Throws an `InvalidInputError` naming the option for bad options.
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
  for (const field of ['authToken', 'sharedKeySecret'] as const)
    if (options[field] !== undefined && !secretSchema.safeParse(options[field]).success)
      throw new InvalidInputError([{ field, message: 'must be 1 to 4096 visible ASCII characters' }]);
  const authToken = twilioAuthToken(options.authToken);
  const sharedKeySecret = twilioSharedKeySecret(options.sharedKeySecret);
  authToken();
  sharedKeySecret();
  return (callback) => {
    if (typeof callback?.path !== 'string' || !callback.path.startsWith('/') || typeof callback.body !== 'string')
      return false;
    return verifyTwilioWebhook({
      authToken: authToken(),
      sharedKeySecret: sharedKeySecret(),
      url: publicUrl.data + callback.path,
      headers: callback.headers ?? {},
      body: callback.body,
    });
  };
}

const formVerifierOptionsSchema = z.strictObject(
  { url: callbackUrlSchema.optional(), authToken: secretSchema.optional(), sharedKeySecret: secretSchema.optional() },
  { error: 'must be an options object' },
);

/** The settings of a verifier of Twilio's form webhooks to one configured URL: the URL, the auth token, a SharedKey. */
export interface TwilioFormVerifierSettings {
  readonly url?: string | undefined;
  readonly authToken?: string | undefined;
  readonly sharedKeySecret?: string | undefined;
}

/**
 * A verifier of Twilio's form webhooks posted to one configured URL (read from `urlVariable` when not given), by the
 * auth token or a SharedKey's secret ({@link verifyTwilioWebhook}): throws `refusal` for anything Twilio did not sign,
 * and returns the delivery id `idOf` reads from a signed body. The settings are read once now (so a missing one
 * fails at creation) and again at each call, as every Twilio setting is.
 */
export function twilioFormVerifier(
  options: TwilioFormVerifierSettings,
  urlVariable: string,
  refusal: string,
  idOf: (body: string) => string,
): { verify(input: { body: string; headers: Readonly<Record<string, string>> }): { id: string } } {
  const settings = parseInput(formVerifierOptionsSchema, options ?? {});
  const url = settingReader({
    name: 'url',
    environmentVariable: urlVariable,
    schema: callbackUrlSchema,
    value: settings.url,
  });
  const authToken = twilioAuthToken(settings.authToken);
  const sharedKeySecret = twilioSharedKeySecret(settings.sharedKeySecret);
  url();
  authToken();
  sharedKeySecret();
  return {
    verify(input) {
      const body = typeof input?.body === 'string' ? input.body : '';
      const headers = input?.headers ?? {};
      if (
        !verifyTwilioWebhook({ authToken: authToken(), sharedKeySecret: sharedKeySecret(), url: url(), headers, body })
      )
        throw new Error(refusal);
      return { id: idOf(body) };
    },
  };
}
