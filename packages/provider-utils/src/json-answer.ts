import { ProviderProtocolError } from '@verikit/provider';
import { answered, type AnsweredCall } from './answer-log.js';
import type { HttpAnswer } from './http-client.js';

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
