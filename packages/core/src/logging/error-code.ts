import { VerikitError } from '@verikit/provider';

/**
 * What a log line may say about an error: its `code` when it is one of ours, else `unknown`. Never
 * the message, which may hold a provider's echo of a number or code.
 */
export function errorCode(error: unknown): string {
  return VerikitError.isInstance(error) ? error.code : 'unknown';
}
