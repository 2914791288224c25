import { useCallback, useMemo, useState, useSyncExternalStore } from 'react';
import type {
  FlowClientError,
  FlowEvent,
  FlowObserver,
  FlowObserverOptions,
  FlowObserverResult,
  FlowView,
} from '@verikit/client';
import { useFlowClient } from './flow-client-context.js';
import { useRequestState } from './use-request-state.js';

/** What {@link useFlow} returns: the observer's result, plus the events a user sends. */
export interface UseFlowResult extends Omit<FlowObserverResult, 'flowId'> {
  /** The flow followed; undefined until there is one. */
  readonly flowId: string | undefined;
  /** Sends a user event; resolves to the view after it, or undefined when it failed (see `sendError`). Never rejects. */
  send(event: FlowEvent): Promise<FlowView | undefined>;
  /** Sends `submit-code` with the code as typed. */
  submitCode(code: string): Promise<FlowView | undefined>;
  /** Sends `resend` (phone, BVN/NIN). */
  resend(): Promise<FlowView | undefined>;
  /** Sends `restart` (USSD). */
  restart(): Promise<FlowView | undefined>;
  /** Sends `cancel`. */
  cancel(): Promise<FlowView | undefined>;
  /** True while an event is being sent. */
  readonly isSending: boolean;
  /**
   * True while a code is being checked: from the moment `submitCode` sends it until the answer, and while
   * the view says `checking`. Disable the code input and show "Checking…" from it.
   */
  readonly isChecking: boolean;
  /** The error of the last event sent (`invalid_input` on `event.code`, `event_not_allowed`, …). */
  readonly sendError: FlowClientError | undefined;
  /** The observer, for what the hook does not cover (`resendInMs()`, `refetch()`). Undefined without a flow id. */
  readonly observer: FlowObserver | undefined;
}

const noFlow: FlowObserverResult = Object.freeze({
  flowId: '',
  view: undefined,
  error: undefined,
  connection: 'idle',
  localResendAvailableAt: undefined,
  localExpiresAt: undefined,
});
const subscribeToNothing = (): (() => void) => () => undefined;
const getNoFlow = (): FlowObserverResult => noFlow;

/**
 * Follows a flow live: the whole binding is `useSyncExternalStore(observer.subscribe,
 * observer.getCurrentResult)`, as in TanStack Query's `useBaseQuery`. The observer connects when the
 * component mounts and disconnects when it unmounts; on the server nothing connects and the first
 * render shows `options.initialView` (or nothing). Pass `undefined` while there is no flow yet.
 *
 * `options` are read when the flow id changes, not on every render.
 *
 * @example
 * const flow = useFlow(flowId, { initialView });
 * if (flow.view?.status === 'awaiting-code') return <OtpInput … onComplete={flow.submitCode} />;
 */
export function useFlow(flowId: string | undefined, options?: FlowObserverOptions): UseFlowResult {
  const client = useFlowClient();
  // biome-ignore lint/correctness/useExhaustiveDependencies: options are taken when the flow changes, not on every render (an inline object would otherwise reconnect each time).
  const observer = useMemo(
    () => (flowId === undefined ? undefined : client.observe(flowId, options)),
    [client, flowId],
  );
  const result = useSyncExternalStore(
    observer?.subscribe ?? subscribeToNothing,
    observer?.getCurrentResult ?? getNoFlow,
    observer?.getCurrentResult ?? getNoFlow,
  );
  const [sending, run] = useRequestState();
  const [submitting, setSubmitting] = useState(0);
  const send = useCallback(
    (event: FlowEvent) => {
      if (flowId === undefined) return Promise.resolve(undefined);
      if (event.type !== 'submit-code') return run(() => client.send(flowId, event));
      setSubmitting((count) => count + 1);
      return run(() => client.send(flowId, event)).finally(() => setSubmitting((count) => count - 1));
    },
    [client, flowId, run],
  );
  const actions = useMemo(
    () => ({
      send,
      submitCode: (code: string) => send({ type: 'submit-code', code }),
      resend: () => send({ type: 'resend' }),
      restart: () => send({ type: 'restart' }),
      cancel: () => send({ type: 'cancel' }),
    }),
    [send],
  );
  const isChecking = submitting > 0 || result.view?.status === 'checking';
  return {
    ...result,
    flowId,
    ...actions,
    isSending: sending.isPending,
    isChecking,
    sendError: sending.error,
    observer,
  };
}
