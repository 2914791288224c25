import { ProviderProtocolError, type Logger, type VerikitError } from '@verikit/provider';
import type { HttpAnswer } from './http-client.js';

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
