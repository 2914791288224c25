import { VerikitError } from '@verikit/provider';

/**
 * The typed error a call rejects with (a promise), or a function throws or rejects with. Throws (failing the test)
 * when the call succeeds, or fails with anything but a `VerikitError`: every public entry point must fail with a
 * typed error, so a test that reads `code` or `field` off the result is checking the right thing. Free of vitest,
 * so any test runner can use it.
 *
 * @example
 * const error = await failureOf(provider.sms!.send({ from: 'Shop', to: 'nope', message: 'hi' }, context));
 * expect(error.field).toBe('to');
 * const refused = await failureOf(() => createTermiiProvider({ apiKey: 12345 as never }));
 * expect(refused.field).toBe('apiKey');
 */
export async function failureOf(call: Promise<unknown> | (() => unknown)): Promise<VerikitError> {
  try {
    await (typeof call === 'function' ? call() : call);
  } catch (error) {
    if (VerikitError.isInstance(error)) return error;
    throw new Error(`expected a verikit error, got: ${String(error)}`, { cause: error });
  }
  throw new Error('expected the call to fail, and it succeeded');
}
