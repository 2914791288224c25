import { ProviderProtocolError, ProviderRejectedError, type ProviderCallContextV1 } from '@verikit/provider';
import { createHttpClient, isAccepted, readJsonAnswer, redactMessage } from '@verikit/provider-utils';
import { parseTermiiJson } from './termii-json.js';
import type { TermiiOperation } from './termii-settings.js';
import type { ResolvedTermiiSettings } from './termii-settings-schema.js';

/** Termii's paths, each as its API reference names it. */
export const termiiPaths = {
  /** Token API, "Send Token" (developers.termii.com/send-token): SMS and WhatsApp codes. */
  sendToken: '/api/sms/otp/send',
  /** Token API, "Voice Token" (developers.termii.com/voice-token): a code read out in a call. */
  voiceToken: '/api/sms/otp/send/voice',
  /** Token API, "Verify Token" (developers.termii.com/verify-token). */
  verifyToken: '/api/sms/otp/verify',
  /** Messaging API, "Send message" (developers.termii.com/messaging-api): SMS and WhatsApp. */
  send: '/api/sms/send',
  /** Insights, "Search" (developers.termii.com/search): a number's DND status and network, by GET. */
  dndSearch: '/api/check/dnd',
} as const;

/** A JSON object Termii answered with. */
export type TermiiAnswer = Readonly<Record<string, unknown>>;

/** Posts one JSON body to Termii, the API key added inside it at the last moment. */
export interface TermiiClient {
  /**
   * Returns the JSON object of a 2xx answer (and of a 400 whose body `keep` accepts); throws a typed error
   * for any other answer, with Termii's message made safe.
   */
  post(
    operation: TermiiOperation,
    path: string,
    body: Record<string, unknown>,
    context: ProviderCallContextV1,
    keep?: (answer: Record<string, unknown>) => boolean,
  ): Promise<TermiiAnswer>;
  /**
   * GETs `path` with `query` in the query string and the API key added to it at the last moment (never in a log
   * line or an error); the answer is read as `post` reads one.
   */
  get(
    operation: TermiiOperation,
    path: string,
    query: Readonly<Record<string, string>>,
    context: ProviderCallContextV1,
  ): Promise<TermiiAnswer>;
}

/** Termii's message in an answer: `message`, else a string `status` or `error`. */
function termiiMessage(answer: unknown): string | undefined {
  if (typeof answer !== 'object' || answer === null) return undefined;
  for (const key of ['message', 'status', 'error']) {
    const value = (answer as Record<string, unknown>)[key];
    if (typeof value === 'string') return value;
  }
  return undefined;
}

/** Creates the Termii client on the shared HTTP client of `@verikit/provider-utils`. */
export function createTermiiClient(settings: ResolvedTermiiSettings): TermiiClient {
  const http = createHttpClient<TermiiOperation>({ ...settings });
  /** Reads an answer: the JSON object of a 2xx (or of a 400 `keep` accepts), else a typed error. */
  const read = (
    operation: TermiiOperation,
    answer: Awaited<ReturnType<typeof http.send>>,
    context: ProviderCallContextV1,
    apiKey: string,
    keep?: (answer: Record<string, unknown>) => boolean,
  ): TermiiAnswer => {
    const parsed = readJsonAnswer(
      { logger: context.logger, provider: settings.name, operation, answer },
      {
        read: parseTermiiJson,
        message: termiiMessage,
        secrets: [apiKey],
        // A 400 whose body `keep` accepts is a result (a wrong code), not a refusal.
        refused: ({ status, body }) =>
          status === 400 && keep !== undefined && body !== undefined && keep(body) ? { result: body } : undefined,
      },
    );
    const code = parsed['code'];
    // The messaging API answers `code: "ok"`; any other code in a 2xx is a refusal.
    if (isAccepted(answer) && typeof code === 'string' && code !== 'ok') {
      const providerMessage = redactMessage(termiiMessage(parsed), [apiKey]);
      throw new ProviderRejectedError(
        `${settings.name} ${operation}: Termii refused the request${providerMessage === undefined ? '' : `: ${providerMessage}`}`,
        {
          ...(providerMessage === undefined ? {} : { providerMessage }),
        },
      );
    }
    return parsed;
  };
  return {
    async post(operation, path, body, context, keep) {
      const apiKey = settings.apiKey();
      const text = JSON.stringify(body);
      const answer = await http.send(
        {
          operation,
          url: settings.baseUrl() + path,
          path,
          body: text,
          // Termii takes the key in the body: it is spliced into the string sent, never into `body`.
          authorize: (_headers, json) =>
            `{"api_key":${JSON.stringify(apiKey)}${json === '{}' ? '}' : `,${json!.slice(1)}`}`,
        },
        context,
      );
      return read(operation, answer, context, apiKey, keep);
    },
    async get(operation, path, query, context) {
      const apiKey = settings.apiKey();
      const answer = await http.send(
        {
          operation,
          method: 'GET',
          url: settings.baseUrl() + path,
          path,
          // The number and the key in the query string, as Termii's Search API takes them: added at the last moment,
          // so no hook, log line or error sees either.
          query: { ...query, api_key: apiKey },
        },
        context,
      );
      return read(operation, answer, context, apiKey);
    },
  };
}

/** A non-empty string (or number, as text) at `key` of an answer, or a `ProviderProtocolError` naming it. */
export function requiredText(label: string, answer: TermiiAnswer, keys: readonly string[]): string {
  for (const key of keys) {
    const value = answer[key];
    if (
      (typeof value === 'string' && value.length > 0 && value.length <= 256) ||
      (typeof value === 'number' && Number.isFinite(value))
    )
      return String(value);
  }
  throw new ProviderProtocolError(`${label}: the response has no ${keys[0]}`, { field: keys[0]! });
}
