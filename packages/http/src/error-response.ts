import { EventNotAllowedError, IdempotencyKeyReusedError, messageIdOf } from '@verikit/core';
import { InvalidInputError, RateLimitedError, VerikitError } from '@verikit/provider';
import { httpStatusOf } from './errors/http-status.js';
import { MethodNotAllowedError } from './errors/method-not-allowed-error.js';
import { jsonResponse } from './routes/route-request.js';

/** The body of every error answer. Built from the error's `toJSON()` and structured fields only; never a stack, a value sent in or a secret. */
export interface ErrorResponseBody {
  /** The error, under one key so a success body and an error body never look alike. */
  readonly error: {
    /** The error class, such as `InvalidInputError`. */
    readonly name: string;
    /** The stable code to branch on. */
    readonly code: string;
    /** Developer English; never holds a secret, a code or a full identity number. */
    readonly message: string;
    /** The stable key a product translates (`verikit.error.<code>`, docs/ui.md); `message` is developer English. */
    readonly messageId: string;
    /** The input field at fault, where there is one. */
    readonly field?: string;
    /** True when the same call may succeed if made again later. */
    readonly isRetryable: boolean;
    /** `invalid_input`: every problem found, each naming its field. */
    readonly issues?: ReadonlyArray<{
      /** The field at fault, as a dotted path. */
      readonly field: string;
      /** What is wrong with it; never echoes the value. */
      readonly message: string;
      /** The key a UI translates, where the problem has its own (`verikit.error.phone_number.too_short`). */
      readonly messageId?: string;
    }>;
    /** `event_not_allowed`: the events the flow accepts now. */
    readonly allowed?: readonly string[];
    /** `rate_limited`: when the call may succeed (ms since the epoch, on the server's clock). */
    readonly retryAt?: number;
    /** `proof_rejected`: why (`invalid`, `expired`, `mismatch`, `used`). */
    readonly reason?: string;
    /** `idempotency_key_reused`: the parameters that differ from the first call's with that key. */
    readonly mismatch?: readonly string[];
    /** `rate_limited`: how long to wait, in ms. Also sent as `Retry-After`, in seconds rounded up. */
    readonly retryAfterMs?: number;
  };
}

/** How long a client should wait after a 503 before trying again, in seconds. */
const unavailableRetryAfterSeconds = 1;

/** The body of every 500: nothing of the error itself reaches the client. */
const internalErrorBody: ErrorResponseBody = {
  error: {
    name: 'InternalError',
    code: 'internal_error',
    message: 'internal error',
    messageId: messageIdOf('internal_error'),
    isRetryable: true,
  },
};

/** An error answer before it becomes a `Response`: the SSE stream sends the same body as its `error` event. */
export interface ErrorAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: ErrorResponseBody;
}

/**
 * The response for an error thrown while handling a request. A verikit error answers with the
 * status its `code` maps to ({@link httpStatusOf}) and `toJSON()` (plus its structured `issues`,
 * `allowed` or `retryAt`); anything else is a 500 with a generic message: its message and stack
 * stay on the server.
 */
export function errorResponse(error: unknown, now: number = Date.now()): Response {
  const { status, headers, body } = errorAnswer(error, now);
  return jsonResponse(body, status, { ...headers });
}

/** The status, headers and body {@link errorResponse} answers an error with. */
export function errorAnswer(error: unknown, now: number = Date.now()): ErrorAnswer {
  if (!VerikitError.isInstance(error)) return { status: 500, headers: {}, body: internalErrorBody };
  const status = httpStatusOf(error);
  const headers: Record<string, string> = {};
  const details: Record<string, unknown> = {};
  if (InvalidInputError.isInstance(error) && Array.isArray(error.issues))
    details.issues = error.issues.map(({ field, message, messageId }) =>
      typeof messageId === 'string' ? { field, message, messageId } : { field, message },
    );
  if (EventNotAllowedError.isInstance(error) && Array.isArray(error.allowed)) details.allowed = [...error.allowed];
  if (IdempotencyKeyReusedError.isInstance(error) && Array.isArray(error.mismatch))
    details.mismatch = [...error.mismatch];
  if (RateLimitedError.isInstance(error) && Number.isFinite(error.retryAt)) {
    details.retryAt = error.retryAt;
    // The wait itself when the error carries it: `retryAt` may be on an engine clock that is not this one.
    const waitMs = Number.isFinite(error.retryAfterMs) ? error.retryAfterMs : error.retryAt - now;
    if (Number.isFinite(error.retryAfterMs)) details.retryAfterMs = error.retryAfterMs;
    headers['retry-after'] = String(Math.max(1, Math.ceil(waitMs / 1000)));
  }
  if (MethodNotAllowedError.isInstance(error)) headers.allow = error.allow.join(', ');
  if (status === 503 && headers['retry-after'] === undefined)
    headers['retry-after'] = String(unavailableRetryAfterSeconds);
  // An input problem with its own message id (a phone number's "too short") says so; else the code's.
  const ownMessageId = InvalidInputError.isInstance(error) ? error.messageId : undefined;
  const messageId = typeof ownMessageId === 'string' ? ownMessageId : messageIdOf(error.code);
  const body: ErrorResponseBody = { error: { ...error.toJSON(), messageId, ...details } };
  return { status, headers, body };
}

/** The generic 500 answer, for the node adapter when a handler throws instead of answering. */
export function internalErrorResponse(): Response {
  return jsonResponse(internalErrorBody, 500);
}
