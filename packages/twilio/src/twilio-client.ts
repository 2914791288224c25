import {
  InvalidInputError,
  ProviderProtocolError,
  RateLimitedError,
  type ProviderCallContextV1,
  type VerikitError,
} from '@verikit/provider';
import { createHttpClient, readJsonAnswer, statusError } from '@verikit/provider-utils';
import type { TwilioOperation } from './twilio-settings.js';
import type { ResolvedTwilioSettings } from './twilio-settings-schema.js';

/** A JSON object Twilio answered with. */
export type TwilioAnswer = Readonly<Record<string, unknown>>;

/** A Twilio error answer, read: HTTP status, Twilio's numeric code and its message made safe. */
interface TwilioFailure {
  /** The HTTP status Twilio answered. */
  readonly status: number;
  /** Twilio's error code (`20404`, `60200`), when the body had one: what the mapping reads. */
  readonly code: number | undefined;
  /** Twilio's message with secrets redacted, when the body had one. */
  readonly message: string | undefined;
}

/** Basic auth credentials: the username (account or API key SID) and the password (auth token or key secret). */
interface TwilioCredentials {
  readonly username: string;
  readonly password: string;
}

/** Posts one form body to Twilio with Basic auth added at the last moment. */
export interface TwilioClient {
  /** The credentials read now (they may come from the environment): an `InvalidInputError` names a missing one. */
  credentials(): TwilioCredentials;
  /**
   * Posts `fields` as a form body (undefined ones left out) and returns the JSON object of a 2xx answer. Any other
   * answer goes to `onFailure` first (which may turn it into a result, e.g. a check's 404), and otherwise becomes
   * the typed error {@link twilioError} gives.
   */
  post<T = TwilioAnswer>(
    operation: TwilioOperation,
    url: string,
    path: string,
    fields: Readonly<Record<string, string | undefined>>,
    context: ProviderCallContextV1,
    onFailure?: (failure: TwilioFailure) => T | undefined,
  ): Promise<TwilioAnswer | T>;
}

/** Send attempts per verification are limited by Twilio over 10 minutes (error 60203). */
const sendWindowMs = 10 * 60_000;

/**
 * Twilio's error answers as typed errors (error codes from twilio.com/docs/api/errors): 60203 max send
 * attempts is a `RateLimitedError`; the rest by HTTP status (401 authentication, 429/5xx unavailable, other 4xx
 * rejected with Twilio's message and code).
 */
function twilioError(label: string, failure: TwilioFailure): VerikitError {
  const quoted =
    failure.message === undefined
      ? undefined
      : `${failure.message}${failure.code === undefined ? '' : ` (Twilio error ${failure.code})`}`;
  if (failure.code === 60203) {
    return new RateLimitedError(
      `${label}: Twilio's limit of code sends to this number was reached (Twilio error 60203)`,
      Date.now() + sendWindowMs,
    );
  }
  return statusError(label, failure.status, quoted);
}

/** Twilio's numeric error code in an error body, if any. */
const twilioCodeOf = (body: Record<string, unknown> | undefined): number | undefined =>
  typeof body?.['code'] === 'number' ? body['code'] : undefined;

/** A form body (`application/x-www-form-urlencoded`) from fields, leaving out the undefined ones. */
function formBody(fields: Readonly<Record<string, string | undefined>>): string {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) form.append(key, value);
  return form.toString();
}

/** The Basic auth pair: an API key's SID and secret when a key SID is set, else the account SID and auth token. */
function credentialsOf(settings: ResolvedTwilioSettings): TwilioCredentials {
  const keySid = settings.apiKeySid();
  if (keySid !== undefined) {
    const secret = settings.apiKeySecret();
    if (secret === undefined)
      throw new InvalidInputError([
        { field: 'apiKeySecret', message: 'is required with apiKeySid: pass it, or set TWILIO_API_KEY_SECRET' },
      ]);
    return { username: keySid, password: secret };
  }
  const token = settings.authToken();
  if (token === undefined) {
    throw new InvalidInputError([
      {
        field: 'authToken',
        message: 'is required: pass authToken (or apiKeySid and apiKeySecret), or set TWILIO_AUTH_TOKEN',
      },
    ]);
  }
  return { username: settings.accountSid(), password: token };
}

/**
 * Creates the Twilio client on the shared HTTP client of `@verikit/provider-utils`, with form bodies. The
 * credentials are read once now, so missing ones fail when the provider is created, and again at each call.
 */
export function createTwilioClient(settings: ResolvedTwilioSettings): TwilioClient {
  const http = createHttpClient<TwilioOperation>({ ...settings, contentType: 'application/x-www-form-urlencoded' });
  const credentials = () => credentialsOf(settings);
  credentials();
  // The Basic header per pair of credentials, computed again only when a credential changes.
  let cached = { username: '', password: '', header: '' };
  const authorization = () => {
    const { username, password } = credentials();
    if (username !== cached.username || password !== cached.password) {
      cached = { username, password, header: `Basic ${btoa(`${username}:${password}`)}` };
    }
    return cached;
  };
  return {
    credentials,
    async post(operation, url, path, fields, context, onFailure) {
      const auth = authorization();
      const answer = await http.send(
        {
          operation,
          url,
          path,
          body: formBody(fields),
          authorize(headers, text) {
            headers['authorization'] = auth.header;
            return text;
          },
        },
        context,
      );
      return readJsonAnswer(
        { logger: context.logger, provider: settings.name, operation, answer },
        {
          message: (body) => (typeof body?.['message'] === 'string' ? body['message'] : undefined),
          secrets: [auth.password, auth.header],
          refused: ({ label, status, body, message }) => {
            const failure: TwilioFailure = { status, code: twilioCodeOf(body), message };
            const handled = onFailure?.(failure);
            return handled === undefined ? twilioError(label, failure) : { result: handled };
          },
          logged: (body) => ({ twilioCode: twilioCodeOf(body) }),
        },
      );
    },
  };
}

/** A SID-like string at `key`, or a `ProviderProtocolError` naming it. */
export function requiredSid(label: string, answer: TwilioAnswer, key: string): string {
  const value = answer[key];
  if (typeof value === 'string' && /^[A-Z]{2}[0-9a-fA-F]{32}$/.test(value)) return value;
  throw new ProviderProtocolError(`${label}: the response has no ${key}`, { field: key });
}
