import type { Logger, VerikitError } from '@verikit/provider';
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
