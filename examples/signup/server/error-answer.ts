import { httpStatusOf, MethodNotAllowedError, type ErrorResponseBody } from '@verikit/http';
import { messageIdOf } from '@verikit/core';
import { InvalidInputError, VerikitError } from '@verikit/provider';

/** The statuses of the app's own error codes; every other code answers as the flow handler would. */
const appStatusByCode: Readonly<Record<string, number>> = {
  // The proof is not one for this claim (another number, expired, used, forged): the caller is not entitled.
  proof_rejected: 403,
  account_exists: 409,
};

/** The HTTP status of an error the app's endpoints throw. */
function statusOf(error: unknown): number {
  if (VerikitError.isInstance(error) && Object.hasOwn(appStatusByCode, error.code)) return appStatusByCode[error.code]!;
  return httpStatusOf(error);
}

/**
 * The answer to an error, in the flow handler's shape (`{ error: { code, message, field, … } }`)
 * so the page reads both the same way. Anything that is not a verikit error is a generic 500.
 */
export function errorAnswer(error: unknown): Response {
  if (!VerikitError.isInstance(error)) {
    const body: ErrorResponseBody = {
      error: {
        name: 'InternalError',
        code: 'internal_error',
        message: 'internal error',
        messageId: messageIdOf('internal_error'),
        isRetryable: true,
      },
    };
    return Response.json(body, { status: 500 });
  }
  const issues = InvalidInputError.isInstance(error)
    ? { issues: error.issues.map(({ field, message }) => ({ field, message })) }
    : {};
  const body: ErrorResponseBody = { error: { ...error.toJSON(), messageId: messageIdOf(error.code), ...issues } };
  const headers: Record<string, string> = { 'cache-control': 'no-store' };
  if (MethodNotAllowedError.isInstance(error)) headers.allow = error.allow.join(', ');
  return Response.json(body, { status: statusOf(error), headers });
}
