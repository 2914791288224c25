export { callContext as context } from '../call-context.js';

/** The error `run` throws, or null. */
export function failureOrNull(run: () => unknown): unknown {
  try {
    run();
    return null;
  } catch (error) {
    return error;
  }
}
