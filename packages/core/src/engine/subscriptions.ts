import { InvalidInputError, VerikitError } from '@verikit/provider';
import { StoreError } from '../errors/store-error.js';
import { UsageError } from '../errors/usage-error.js';
import { parseFlowId } from '../inputs/inputs.js';
import { safeStoreCause } from '../store/safe-store-cause.js';
import type { FlowChangeBus, FlowListener } from './change-bus.js';

/** `verikit.subscribe` and `verikit.subscribed`: the live subscriptions made through one engine, per flow. */
export class Subscriptions {
  readonly #bus: FlowChangeBus;
  /** `subscribed` is only meaningful after a `subscribe`. */
  readonly #listening = new Map<string, number>();

  constructor(bus: FlowChangeBus) {
    this.#bus = bus;
  }

  subscribe(rawFlowId: string, listener: FlowListener): () => void {
    const flowId = parseFlowId(rawFlowId);
    if (typeof listener !== 'function')
      throw new InvalidInputError([{ field: 'listener', message: 'must be a function' }]);
    const unsubscribe = this.#bus.subscribe(flowId, listener);
    const listening = this.#listening;
    listening.set(flowId, (listening.get(flowId) ?? 0) + 1);
    let live = true;
    return () => {
      if (!live) return;
      live = false;
      const left = (listening.get(flowId) ?? 1) - 1;
      if (left > 0) listening.set(flowId, left);
      else listening.delete(flowId);
      unsubscribe();
    };
  }

  async subscribed(rawFlowId: string): Promise<void> {
    const flowId = parseFlowId(rawFlowId);
    // A programming error, not an outage: answered as such, never as a retryable store failure.
    if (!this.#listening.has(flowId)) {
      throw new UsageError(
        'subscribed(flowId) waits for a subscription: call subscribe(flowId, listener) first, and keep it until subscribed resolves',
        { field: 'flowId' },
      );
    }
    try {
      await this.#bus.subscribed?.(flowId);
    } catch (error) {
      if (VerikitError.isInstance(error)) throw error;
      throw new StoreError('live updates are unavailable: the change bus could not subscribe', {
        cause: safeStoreCause(error),
      });
    }
  }
}
