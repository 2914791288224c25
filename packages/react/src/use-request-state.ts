import { useCallback, useRef, useState } from 'react';
import { FlowClientError } from '@verikit/client';

/** The state of a request a hook makes on the user's behalf. */
export interface RequestState {
  /** True while the request is under way. */
  readonly isPending: boolean;
  /** The error of the last request, cleared when the next one starts. */
  readonly error: FlowClientError | undefined;
}

const idle: RequestState = Object.freeze({ isPending: false, error: undefined });

/**
 * Runs requests for a hook, tracking whether one is under way and its error. The returned `run`
 * never rejects (resolving to undefined on failure, the error in the state): a click handler needs
 * no try/catch and leaves no unhandled rejection. Errors that are not the client's are rethrown.
 */
export function useRequestState(): [
  RequestState,
  <T>(request: () => Promise<T>) => Promise<T | undefined>,
  () => void,
] {
  const [state, setState] = useState<RequestState>(idle);
  const latest = useRef(0);
  const run = useCallback(async <T>(request: () => Promise<T>): Promise<T | undefined> => {
    const id = ++latest.current;
    setState({ isPending: true, error: undefined });
    try {
      const result = await request();
      if (id === latest.current) setState(idle);
      return result;
    } catch (error) {
      if (!FlowClientError.isInstance(error)) throw error;
      if (id === latest.current) setState({ isPending: false, error });
      return undefined;
    }
  }, []);
  const reset = useCallback(() => {
    latest.current += 1;
    setState(idle);
  }, []);
  return [state, run, reset];
}
