import { ProviderProtocolError, type Logger, type VerikitError } from '@verikit/provider';
import type { HttpAnswer } from './http-client.js';
import { redactMessage } from './redact.js';
import { statusError } from './status-error.js';

/** What every HTTP provider logs of an answer: the call and the answer's status and time, never a body. */
export interface AnsweredCall {
  /** The call's logger (`context.logger`). */
  readonly logger: Logger;
  /** The provider's name (`settings.name`): the log line is `verikit.<provider>.failed` or `.response`. */
  readonly provider: string;
  /** The operation, as the spec names it (`sms.send`). */
  readonly operation: string;
  /** The answer: its status and how long it took. */
  readonly answer: Pick<HttpAnswer, 'status' | 'durationMs'>;
}

/**
 * Logs a refused answer at warning (`verikit.<provider>.failed`: the operation, the HTTP status, the error's code,
 * the time taken and `extra`, such as the provider's own error code) and returns `error` for the caller to throw:
 * `throw failedAnswer(call, error)`. One line per refusal, the same in every provider.
 */
export function failedAnswer<E extends VerikitError>(
  call: AnsweredCall,
  error: E,
  extra: Readonly<Record<string, unknown>> = {},
): E {
  call.logger.warn(`verikit.${call.provider}.failed`, {
    operation: call.operation,
    status: call.answer.status,
    ...extra,
    error: error.code,
    durationMs: call.answer.durationMs,
  });
  return error;
}

/** Logs an accepted answer at debug (`verikit.<provider>.response`: the operation, the status, the time, `extra`). */
export function answered(call: AnsweredCall, extra: Readonly<Record<string, unknown>> = {}): void {
  call.logger.debug(`verikit.${call.provider}.response`, {
    operation: call.operation,
    status: call.answer.status,
    ...extra,
    durationMs: call.answer.durationMs,
  });
}

/** Reads a body's text as JSON: `JSON.parse`, or a provider's own reader (Termii's keeps long ids whole). */
export type JsonReader = (text: string) => unknown;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The JSON object of an answer's body, or `undefined` when it is not one: an error answer's status then decides alone. */
export function jsonObjectOrNothing(text: string, read: JsonReader = JSON.parse): Record<string, unknown> | undefined {
  try {
    const json = read(text);
    return isObject(json) ? json : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The JSON object of an accepted (2xx) answer, logged as answered (`verikit.<provider>.response`); a body that is
 * not JSON, or not an object, is a `ProviderProtocolError` on `body` that never quotes the text (it may carry a code).
 */
export function acceptedJsonObject(
  call: AnsweredCall & { readonly answer: HttpAnswer },
  read: JsonReader = JSON.parse,
): Record<string, unknown> {
  const label = `${call.provider} ${call.operation}`;
  let json: unknown;
  try {
    json = read(call.answer.text);
  } catch {
    throw new ProviderProtocolError(`${label}: the response (HTTP ${call.answer.status}) is not JSON`, {
      field: 'body',
    });
  }
  if (!isObject(json))
    throw new ProviderProtocolError(`${label}: the response (HTTP ${call.answer.status}) is not a JSON object`, {
      field: 'body',
    });
  answered(call);
  return json;
}

/** True for a 2xx status: the provider accepted the request (what its body says is the provider's to read). */
export function isAccepted(answer: { readonly status: number }): boolean {
  return answer.status >= 200 && answer.status <= 299;
}

/** A refused (non-2xx) answer, as {@link readJsonAnswer} hands it to a provider that reads some itself. */
export interface RefusedAnswer {
  /** `<provider> <operation>`: the start of an error's message. */
  readonly label: string;
  /** The HTTP status. */
  readonly status: number;
  /** The body's JSON object, or `undefined` when it is not one. */
  readonly body: Record<string, unknown> | undefined;
  /** The provider's message, redacted of the secrets and made safe, or `undefined`. */
  readonly message: string | undefined;
}

/** How one provider reads its answers with {@link readJsonAnswer}; every part may be left out. */
export interface JsonAnswerReading<Result = never> {
  /** Reads a body's text as JSON. Default `JSON.parse`. */
  readonly read?: JsonReader;
  /** The provider's own message in a refused answer: from its JSON object (when it is one) or its text. */
  readonly message?: (body: Record<string, unknown> | undefined, text: string) => string | undefined;
  /** What the message must never carry (the key, the number): each replaced by `[redacted]` before it is quoted. */
  readonly secrets?: readonly (string | undefined)[];
  /**
   * A refused answer the provider reads itself, before the status decides: `{ result }` to return it (logged as
   * answered: a 404 that means "no record"), an error to throw (logged as refused), or `undefined` for
   * `statusError`'s.
   */
  readonly refused?: (answer: RefusedAnswer) =>
    | {
        /** What {@link readJsonAnswer} returns for this answer. */
        readonly result: Result;
      }
    | VerikitError
    | undefined;
  /** Fields a refused answer's log line adds (the provider's own error code), from its JSON object. */
  readonly logged?: (body: Record<string, unknown> | undefined) => Readonly<Record<string, unknown>>;
}

/**
 * An HTTP provider's answer read the one way every provider reads it: a 2xx is its JSON object (logged as
 * answered; a body that is not one is a `ProviderProtocolError`); any other answer is `refused`'s result or error,
 * else the typed error its status gives (`statusError`), quoting the provider's message redacted of `secrets`,
 * logged as refused (`verikit.<provider>.failed`). What the provider reads inside the object is its own.
 */
export function readJsonAnswer<Result = never>(
  call: AnsweredCall & { readonly answer: HttpAnswer },
  reading: JsonAnswerReading<Result> = {},
): Record<string, unknown> | Result {
  const { answer } = call;
  if (isAccepted(answer)) return acceptedJsonObject(call, reading.read);
  const body = jsonObjectOrNothing(answer.text, reading.read);
  const label = `${call.provider} ${call.operation}`;
  const message = redactMessage(reading.message?.(body, answer.text), reading.secrets ?? []);
  const own = reading.refused?.({ label, status: answer.status, body, message });
  if (own !== undefined && 'result' in own) {
    answered(call);
    return own.result;
  }
  throw failedAnswer(call, own ?? statusError(label, answer.status, message), reading.logged?.(body));
}
