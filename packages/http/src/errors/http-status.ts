import { VerikitError } from '@verikit/provider';

/**
 * The HTTP status for each error `code`: the one place the HTTP layer decides how an error is
 * answered. Errors carry what happened (`code`, `field`, `isRetryable`), never a transport's
 * status: the engine and the providers are used outside HTTP too.
 */
const statusByCode: Readonly<Record<string, number>> = {
  invalid_input: 400,
  webhook_unverified: 401,
  forbidden: 403,
  proof_rejected: 403,
  flow_not_found: 404,
  route_not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  event_not_allowed: 409,
  flow_not_verified: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  headers_too_large: 431,
  capability_missing: 422,
  idempotency_key_reused: 422,
  rate_limited: 429,
  record_schema: 500,
  // A bug in the calling code (subscribed before subscribe): the server's fault, never the client's.
  usage_error: 500,
  provider_authentication: 502,
  provider_protocol: 502,
  provider_rejected: 502,
  provider_unavailable: 503,
  store_unavailable: 503,
};

/**
 * The HTTP status an error is answered with: from its `code` for a verikit error, 500 for a code
 * this table does not know and for anything that is not a verikit error.
 */
export function httpStatusOf(error: unknown): number {
  if (!VerikitError.isInstance(error)) return 500;
  return Object.hasOwn(statusByCode, error.code) ? statusByCode[error.code]! : 500;
}
