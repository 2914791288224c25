import type { Logger, ProviderCallContextV1, VerikitError } from '@verikit/provider';
import { failureOf } from './failure-of.js';
import { expectNoSecrets } from './reachable-text.js';

/**
 * What a provider's tests watch: the requests it sent (its `fetch`), the lines its logger was given, the requests
 * its `beforeRequest` hook saw, and the errors its calls failed with. Give the provider `fetch` and `hooks` and call
 * it with `context()`, take failures through `failure`, then `expectNoSecrets` searches everything kept.
 */
export interface LeakWatch {
  /** A logger that keeps every line it is given, message and fields. */
  readonly logger: Logger;
  /** Provider `hooks` whose `beforeRequest` keeps each request sent (a hook sees what a tracing hook would). */
  readonly hooks: {
    /** One hook, keeping the request it is given. */
    readonly beforeRequest: Array<(request: Request) => void>;
  };
  /**
   * A `fetch` for the provider's `fetch` setting that keeps each request in `sent` and passes it to the global
   * `fetch` (`sent.length` counts the calls, so a test can show that a refusal sent nothing).
   */
  readonly fetch: typeof fetch;
  /** Each request the watch's `fetch` passed on, oldest first. */
  readonly sent: readonly RecordedRequest[];
  /** A fresh call context, with its own signal and the watch's `logger` (a plain function: `const { context } = watch`). */
  context(): ProviderCallContextV1;
  /** The typed error `promise` rejects with ({@link failureOf}), kept to be searched (a plain function too). */
  failure(promise: Promise<unknown>): Promise<VerikitError>;
  /** Keeps more values (errors caught some other way, results) to be searched. */
  keep(...values: unknown[]): void;
  /** How much was kept, so a test can show that it searched something. */
  readonly kept: {
    /** Errors taken by `failure`, and values given to `keep`. */
    readonly errors: number;
    /** Requests the hook saw. */
    readonly requests: number;
    /** Lines the logger was given. */
    readonly lines: number;
  };
  /**
   * Throws (failing the test) when any of `secrets` is reachable from what was kept: every error (message, cause,
   * own fields), every log line, and every request's URL and headers.
   */
  expectNoSecrets(secrets: readonly string[]): void;
}

/**
 * A new {@link LeakWatch}. Free of vitest, like {@link failureOf}.
 *
 * @example
 * const watch = leakWatch();
 * const provider = createTermiiProvider({ apiKey, baseUrl: fake.baseUrl, fetch: watch.fetch, hooks: watch.hooks });
 * await watch.failure(provider.sms!.send({ to: '+2348039900001', message: 'hi' }, watch.context()));
 * watch.expectNoSecrets([apiKey]);
 */
export function leakWatch(): LeakWatch {
  const errors: unknown[] = [];
  const requests: Request[] = [];
  const sent: RecordedRequest[] = [];
  const lines: unknown[] = [];
  const keepLine = (message: string, fields?: unknown) => void lines.push([message, fields]);
  let sequence = 0;
  const logger: Logger = { debug: keepLine, info: keepLine, warn: keepLine, error: keepLine };
  return {
    logger,
    sent,
    fetch: (input, init) => {
      sent.push({
        url: String(input),
        headers: { ...(init?.headers as Record<string, string> | undefined) },
        body: init?.body === undefined || init.body === null ? '' : String(init.body),
      });
      return fetch(input, init);
    },
    hooks: { beforeRequest: [(request) => void requests.push(request)] },
    context() {
      sequence += 1;
      return {
        signal: new AbortController().signal,
        idempotencyKey: `leak-watch:effect:${sequence}`,
        logger,
      };
    },
    async failure(promise) {
      const error = await failureOf(promise);
      errors.push(error);
      return error;
    },
    keep(...values) {
      errors.push(...values);
    },
    get kept() {
      return { errors: errors.length, requests: requests.length, lines: lines.length };
    },
    expectNoSecrets(secrets) {
      const seen = requests.map((request) => [request.url, ...request.headers].join(' '));
      expectNoSecrets([errors, lines, seen], secrets);
    },
  };
}

/** One request a {@link LeakWatch}'s `fetch` passed on: its URL, headers and body as given to `fetch`. */
export interface RecordedRequest {
  /** The URL, as a string. */
  readonly url: string;
  /** The headers, as given in `init` (a plain object). */
  readonly headers: Readonly<Record<string, string>>;
  /** The body as text; empty when there was none. */
  readonly body: string;
}
