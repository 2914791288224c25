import { parseJson, readBoundedJson } from '../read-body.js';
import { FlowClientError, type FlowClientIssue } from './flow-client-error.js';

const namePattern = /^[A-Za-z][A-Za-z0-9]{0,63}$/;
const codePattern = /^[a-z][a-z0-9_]{0,63}$/;
const messageIdPattern = /^[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*){1,7}$/;
const eventTypePattern = /^[a-z][a-z0-9-]{0,31}$/;
const fieldPattern = /^[A-Za-z0-9_.[\]-]{1,128}$/;
const maxMessageLength = 500;
const maxIssues = 50;
const maxAllowed = 16;

function text(value: unknown, max: number): string | undefined {
  return typeof value === 'string' ? value.slice(0, max) : undefined;
}

function messageIdOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.length <= 128 && messageIdPattern.test(value) ? value : undefined;
}

function fieldOf(value: unknown): string | undefined {
  return typeof value === 'string' && fieldPattern.test(value) ? value : undefined;
}

function issuesOf(value: unknown): FlowClientIssue[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const issues: FlowClientIssue[] = [];
  for (const item of value.slice(0, maxIssues)) {
    const field = fieldOf((item as Record<string, unknown> | null)?.field);
    const message = text((item as Record<string, unknown> | null)?.message, maxMessageLength);
    const messageId = messageIdOf((item as Record<string, unknown> | null)?.messageId);
    if (field !== undefined && message !== undefined)
      issues.push(Object.freeze(messageId === undefined ? { field, message } : { field, message, messageId }));
  }
  return Object.freeze(issues) as FlowClientIssue[];
}

function allowedOf(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return Object.freeze(
    value
      .slice(0, maxAllowed)
      .filter((type): type is string => typeof type === 'string' && eventTypePattern.test(type)),
  ) as string[];
}

/** `Retry-After` in ms (seconds or an HTTP date), or undefined. */
export function retryAfterMsOf(response: Response, now: number): number | undefined {
  const header = response.headers.get('retry-after')?.trim();
  if (header === undefined || header === '') return undefined;
  if (/^\d{1,9}$/.test(header)) return Number(header) * 1000;
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(header)) return undefined;
  const at = Date.parse(header);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

/** Whether an answer with this status may succeed if asked again. */
function retryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * Rebuilds the server's typed error from an error answer (`{ error: { name, code, message, messageId,
 * field?, isRetryable, issues?, allowed?, retryAt? } }`) with the same `code`, `field` and `isRetryable`.
 * Every field is checked, never trusted: an answer that is not the API's (a proxy's HTML 502, a
 * truncated body) becomes `bad_response`, retryable when its status is.
 */
export async function errorFromResponse(response: Response, now: number = Date.now()): Promise<FlowClientError> {
  const status = response.status;
  return errorFromBody(await readBoundedJson(response), status, retryableStatus(status), retryAfterMsOf(response, now));
}

/**
 * Rebuilds the typed error of a stream's `event: error` (its data is an error answer's body, decision
 * 0053), checked as {@link errorFromResponse} checks an answer. `statusCode` is the stream's 200: no
 * error status was answered. Data that is not an API error is a retryable `bad_response` (the stream
 * failed; reading again may work). A wait the body names (`retryAfterMs`) stands in for `Retry-After`.
 */
export function errorFromEvent(data: string): FlowClientError {
  const body = parseJson(data);
  const waitMs = (body as { error?: { retryAfterMs?: unknown } } | undefined)?.error?.retryAfterMs;
  const retryAfterMs = typeof waitMs === 'number' && Number.isFinite(waitMs) && waitMs >= 0 ? waitMs : undefined;
  return errorFromBody(body, 200, true, retryAfterMs);
}

/** The error in an API error body; `bad_response` when it holds none. */
function errorFromBody(
  body: unknown,
  status: number,
  retryableByDefault: boolean,
  retryAfterMs: number | undefined,
): FlowClientError {
  const error = (body as { error?: unknown } | undefined)?.error as Record<string, unknown> | undefined;
  const code = typeof error === 'object' && error !== null ? error.code : undefined;
  if (typeof code !== 'string' || !codePattern.test(code)) {
    return new FlowClientError('bad_response', `the server answered ${status} without an API error`, {
      statusCode: status,
      isRetryable: retryableByDefault,
      retryAfterMs,
    });
  }
  const name = typeof error!.name === 'string' && namePattern.test(error!.name) ? error!.name : 'FlowClientError';
  const retryAt = typeof error!.retryAt === 'number' && Number.isFinite(error!.retryAt) ? error!.retryAt : undefined;
  const messageId = messageIdOf(error!.messageId);
  return new FlowClientError(code, text(error!.message, maxMessageLength) ?? code, {
    name,
    messageId,
    field: fieldOf(error!.field),
    isRetryable: typeof error!.isRetryable === 'boolean' ? error!.isRetryable : retryableByDefault,
    statusCode: status,
    issues: issuesOf(error!.issues),
    allowed: allowedOf(error!.allowed),
    retryAt,
    retryAfterMs,
  });
}

/** No answer arrived: the network failed, the server is unreachable, or CORS refused the request. */
export function networkError(cause: unknown): FlowClientError {
  return new FlowClientError('network_error', 'the server could not be reached', {
    name: 'NetworkError',
    isRetryable: true,
    cause,
  });
}

/** An error thrown or rejected on the way: the client's own as it is, anything else a `network_error`. */
export function asClientError(error: unknown): FlowClientError {
  return FlowClientError.isInstance(error) ? error : networkError(error);
}

/** A 2xx answer whose body is not what the API sends. */
export function badResponse(status: number, what: string): FlowClientError {
  return new FlowClientError('bad_response', `the server answered ${status} without ${what}`, {
    statusCode: status,
    isRetryable: retryableStatus(status),
  });
}
