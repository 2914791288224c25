import {
  ProviderProtocolError,
  RateLimitedError,
  type ProviderCallContextV1,
  type VerikitError,
} from '@verikit/provider';
import {
  acceptedJsonObject,
  createHttpClient,
  failedAnswer,
  isAccepted,
  jsonObjectOrNothing,
  redactMessage,
  statusError,
} from '@verikit/provider-utils';
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

/** Posts one form body to Twilio with Basic auth added at the last moment. */
export interface TwilioClient {
  /**
   * Returns the JSON object of a 2xx answer. Any other answer goes to `onFailure` first (which may turn it
   * into a result, e.g. a check's 404), and otherwise becomes the typed error {@link twilioError} gives.
   */
  post<T = TwilioAnswer>(
    operation: TwilioOperation,
    url: string,
    path: string,
    body: string,
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

/** Creates the Twilio client on the shared HTTP client of `@verikit/provider-utils`, with form bodies. */
export function createTwilioClient(settings: ResolvedTwilioSettings): TwilioClient {
  const http = createHttpClient<TwilioOperation>({ ...settings, contentType: 'application/x-www-form-urlencoded' });
  // The Basic header per pair of credentials, computed again only when a credential changes.
  let cached = { username: '', password: '', header: '' };
  const authorization = () => {
    const { username, password } = settings.credentials();
    if (username !== cached.username || password !== cached.password) {
      cached = { username, password, header: `Basic ${btoa(`${username}:${password}`)}` };
    }
    return cached;
  };
  return {
    async post(operation, url, path, body, context, onFailure) {
      const auth = authorization();
      const label = `${settings.name} ${operation}`;
      const answer = await http.send(
        {
          operation,
          url,
          path,
          body,
          authorize(headers, text) {
            headers['authorization'] = auth.header;
            return text;
          },
        },
        context,
      );
      const logged = { logger: context.logger, provider: settings.name, operation, answer };
      if (!isAccepted(answer)) {
        const parsed = jsonObjectOrNothing(answer.text) ?? {};
        const failure: TwilioFailure = {
          status: answer.status,
          code: typeof parsed['code'] === 'number' ? parsed['code'] : undefined,
          message: redactMessage(typeof parsed['message'] === 'string' ? parsed['message'] : undefined, [
            auth.password,
            auth.header,
          ]),
        };
        const handled = onFailure?.(failure);
        if (handled !== undefined) return handled;
        throw failedAnswer(logged, twilioError(label, failure), { twilioCode: failure.code });
      }
      return acceptedJsonObject(logged);
    },
  };
}

/** A SID-like string at `key`, or a `ProviderProtocolError` naming it. */
export function requiredSid(label: string, answer: TwilioAnswer, key: string): string {
  const value = answer[key];
  if (typeof value === 'string' && /^[A-Z]{2}[0-9a-fA-F]{32}$/.test(value)) return value;
  throw new ProviderProtocolError(`${label}: the response has no ${key}`, { field: key });
}
