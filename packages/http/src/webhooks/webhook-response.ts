import type { ReceiveResult } from '@verikit/core';
import { errorCode } from '@verikit/core/internal';
import { InvalidInputError, VerikitError } from '@verikit/provider';
import type { RouteAnswer } from '../routes/route-request.js';

/** What the endpoint says happened, in every response body. */
export type WebhookStatus =
  /** 200: the event advanced a flow. */
  | 'applied'
  /** 200: this message was processed before; nothing changed. */
  | 'duplicate'
  /** 202: a genuine event of a kind verikit does not handle; acknowledged and dropped. */
  | 'ignored'
  /** 202: no flow is waiting for this event (none for the number, or it has finished). */
  | 'no-active-flow'
  /** 409: another delivery of the same message is being processed; retry after `Retry-After` (when its claim has lapsed at the latest). */
  | 'in-progress'
  /** 401: forged, stale, unsigned, or no secret is configured. */
  | 'unverified'
  /** 400: not UTF-8, not JSON, or missing or mistyped fields. */
  | 'malformed'
  /** 413: the body is larger than `maxBodyBytes`. */
  | 'too-large'
  /** 405: only POST is accepted. */
  | 'method-not-allowed'
  /** 503: applying the event failed for a passing reason (store outage), or took longer than `processingTimeoutMs`; the sender should retry. */
  | 'retry'
  /** 500: an unexpected failure; the sender may retry. */
  | 'error';

/** A webhook response body. It never echoes the payload, a header, a signature or a secret. */
export interface WebhookResponseBody {
  /** What happened; the HTTP status follows from it, so a sender retries only what may succeed. */
  readonly status: WebhookStatus;
  /** The flow an `applied` event advanced. */
  readonly flowId?: string;
  /** Why the webhook was not applied, for the developer reading the sender's delivery log. */
  readonly error?: {
    /** The stable code, e.g. `webhook_unverified`. */
    readonly code: string;
    /** What went wrong, for the developer; never holds the secret or the payload. */
    readonly message: string;
    /** The payload field at fault, where there is one. */
    readonly field?: string;
  };
}

const httpStatusOf: Readonly<Record<WebhookStatus, number>> = {
  applied: 200,
  duplicate: 200,
  ignored: 202,
  'no-active-flow': 202,
  'in-progress': 409,
  unverified: 401,
  malformed: 400,
  'too-large': 413,
  'method-not-allowed': 405,
  retry: 503,
  error: 500,
};

/** A response body, and for `retry` and `in-progress` when to deliver again. */
export interface WebhookAnswer {
  readonly body: WebhookResponseBody;
  /** The `Retry-After` header, in whole seconds. Default for `retry` and `in-progress`: 30. */
  readonly retryAfterSeconds?: number;
}

/** The `Retry-After` of a `retry` or `in-progress` answer that knows no better (a store outage). */
const defaultRetryAfterSeconds = 30;

/** The JSON answer for `body`, with the HTTP status its `status` maps to. */
export function webhookAnswer(body: WebhookResponseBody, retryAfterSeconds?: number): RouteAnswer {
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
  };
  if (body.status === 'method-not-allowed') headers.allow = 'POST';
  if (body.status === 'retry' || body.status === 'in-progress')
    headers['retry-after'] = String(retryAfterSeconds ?? defaultRetryAfterSeconds);
  return { status: httpStatusOf[body.status], headers, body: JSON.stringify(body) };
}

/** The `malformed` answer for an input error, naming its field. */
export function malformed(error: InvalidInputError): WebhookResponseBody {
  return {
    status: 'malformed',
    error: { code: error.code, message: error.message, ...(error.field ? { field: error.field } : {}) },
  };
}

/** The answer to what the engine's `receive` did with a delivery. */
export function answerOf(result: ReceiveResult): WebhookAnswer {
  switch (result.outcome) {
    case 'applied':
      return {
        body: result.flowId === undefined ? { status: 'applied' } : { status: 'applied', flowId: result.flowId },
      };
    case 'in-progress':
      return { body: { status: 'in-progress' }, retryAfterSeconds: retryAfterSecondsOf(result) };
    case 'timed-out':
      return {
        body: {
          status: 'retry',
          error: { code: 'webhook_timeout', message: 'the event is still being applied; deliver it again later' },
        },
        retryAfterSeconds: retryAfterSecondsOf(result),
      };
    default:
      return { body: { status: result.outcome } };
  }
}

/** `Retry-After` in whole seconds (at least 1) for what the engine says; the default when it says nothing. */
function retryAfterSecondsOf(result: ReceiveResult): number {
  return result.retryAfterMs === undefined
    ? defaultRetryAfterSeconds
    : Math.max(1, Math.ceil(result.retryAfterMs / 1000));
}

/** The answer to a delivery the engine could not apply: the claim was given back, so a redelivery may succeed. */
export function failureOf(error: unknown): WebhookResponseBody {
  // An event the engine refuses as invalid is refused again on every redelivery: tell the sender so.
  if (InvalidInputError.isInstance(error)) return malformed(error);
  return VerikitError.isInstance(error) && error.isRetryable
    ? {
        status: 'retry',
        error: { code: errorCode(error), message: 'the event could not be applied now; deliver it again later' },
      }
    : { status: 'error', error: { code: errorCode(error), message: 'the event could not be applied' } };
}
