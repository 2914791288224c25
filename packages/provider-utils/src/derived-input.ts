import { isParsedV1, markParsedV1 } from '@verikit/provider';

/**
 * An input a wrapper derives from the one it was given (another requestId, `resendOf` added), marked as parsed
 * when the given one was: the engine's input is parsed once, whatever wraps the provider (decision 1520).
 */
export function derivedInput<T extends object>(given: unknown, derived: T): T {
  return isParsedV1(given) ? markParsedV1(derived) : derived;
}
