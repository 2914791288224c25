/**
 * The error codes a product may meet, in a flow's view or an HTTP error answer, each with a stable
 * message id (`verikit.error.<code>`): the key a product translates, where `message` is developer
 * English that may change between releases. docs/ui.md lists them.
 */
export const errorMessageIds: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(
    [
      // In a view: why a flow went wrong.
      'code_invalid',
      'attempts_exhausted',
      'dial_failed',
      'superseded',
      'match_failed',
      'no_record',
      'consent_refused',
      'consent_pending',
      'face_mismatch',
      'liveness_failed',
      'step_failed',
      'outcome_unknown',
      'provider_unavailable',
      'provider_rejected',
      'provider_authentication',
      'provider_protocol',
      'provider_error',
      'capability_missing',
      'record_schema',
      // In an error answer: why a call was refused.
      'invalid_input',
      'event_not_allowed',
      'rate_limited',
      'flow_not_found',
      'flow_not_verified',
      'proof_rejected',
      'forbidden',
      'conflict',
      'idempotency_key_reused',
      'store_unavailable',
      'internal_error',
      'usage_error',
      // Answers of the HTTP layer to requests it cannot take.
      'route_not_found',
      'method_not_allowed',
      'payload_too_large',
      'unsupported_media_type',
      'request_timeout',
      'headers_too_large',
      'webhook_unverified',
      'webhook_timeout',
    ].map((code) => [code, `verikit.error.${code}`]),
  ),
);

/** The id for any code this release does not list (a custom provider's): render a generic message. */
export const unknownErrorMessageId = 'verikit.error.unknown';

/** The stable message id of an error code. */
export function messageIdOf(code: string): string {
  return Object.hasOwn(errorMessageIds, code) ? errorMessageIds[code]! : unknownErrorMessageId;
}
