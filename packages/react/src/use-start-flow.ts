import { useCallback, useState } from 'react';
import type { FlowClientError, FlowView, StartFlowInput } from '@verikit/client';
import { useFlowClient } from './flow-client-context.js';
import { useRequestState } from './use-request-state.js';

/** What {@link useStartFlow} returns. */
export interface UseStartFlowResult {
  /** Starts a flow; resolves to its first view, or undefined when it failed (see `error`). Never rejects. */
  start(input: StartFlowInput): Promise<FlowView | undefined>;
  /**
   * Resumes the live flow this browser started for the same input (after a reload: the client keeps
   * flow handles in `sessionStorage`); resolves to its view, or undefined when there is none. Sends nothing.
   */
  resume(input: StartFlowInput): Promise<FlowView | undefined>;
  /** The first view of the flow last started. */
  readonly view: FlowView | undefined;
  /** True while `start` runs: disable the form meanwhile. */
  readonly isPending: boolean;
  /** Why the last start failed (`invalid_input` naming `phoneNumber`, `rate_limited` with `retryAt`, …). */
  readonly error: FlowClientError | undefined;
  /** Forgets the flow started and the error. */
  reset(): void;
}

/**
 * Starts flows, as a mutation: pass `view?.id` (and `view` as `initialView`) to `useFlow` to follow
 * the flow started.
 *
 * @example
 * const { start, view, error } = useStartFlow();
 * const flow = useFlow(view?.id, { initialView: view });
 */
export function useStartFlow(): UseStartFlowResult {
  const client = useFlowClient();
  const [view, setView] = useState<FlowView | undefined>(undefined);
  const [state, run, resetState] = useRequestState();
  const start = useCallback(
    async (input: StartFlowInput) => {
      const started = await run(() => client.start(input));
      if (started !== undefined) setView(started);
      return started;
    },
    [client, run],
  );
  const resume = useCallback(
    async (input: StartFlowInput) => {
      const resumed = await run(() => client.resume(input));
      if (resumed !== undefined) setView(resumed);
      return resumed;
    },
    [client, run],
  );
  const reset = useCallback(() => {
    setView(undefined);
    resetState();
  }, [resetState]);
  return { start, resume, view, isPending: state.isPending, error: state.error, reset };
}
