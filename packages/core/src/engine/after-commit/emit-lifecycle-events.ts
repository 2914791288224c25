import { InvalidInputError, type Logger } from '@verikit/provider';
import { flowEventTypes, type FlowEvent, type FlowEventListener, type FlowEventType } from '../../flows/view.js';
import { errorCode } from '../../logging/error-code.js';
import {
  circuitEventTypes,
  type CircuitEvent,
  type CircuitEventListener,
  type CircuitEventType,
} from '../circuit-events.js';
import type { AfterCommitStep } from './after-commit-step.js';

const eventTypes: ReadonlySet<string> = new Set<string>([...flowEventTypes, '*', ...circuitEventTypes]);

type AnyListener = (event: FlowEvent | CircuitEvent) => void | Promise<void>;

/** The listeners of one engine, by event type (`*`: every flow event type). */
export class LifecycleListeners {
  readonly #listeners = new Map<string, Set<AnyListener>>();
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  on(type: FlowEventType | '*' | CircuitEventType, listener: FlowEventListener | CircuitEventListener): () => void {
    if (!eventTypes.has(type))
      throw new InvalidInputError([{ field: 'type', message: `must be one of ${[...eventTypes].join(', ')}` }]);
    if (typeof listener !== 'function')
      throw new InvalidInputError([{ field: 'listener', message: 'must be a function' }]);
    const added = this.#listeners.get(type) ?? new Set<AnyListener>();
    this.#listeners.set(type, added);
    const wrapped = (event: FlowEvent | CircuitEvent) => (listener as AnyListener)(event);
    added.add(wrapped);
    return () => added.delete(wrapped);
  }

  /** Whether any listener would be told of one of `events` (a listener of its type, or of every flow event). */
  hears(events: readonly FlowEvent[]): boolean {
    if ((this.#listeners.get('*')?.size ?? 0) > 0) return events.length > 0;
    return events.some((event) => (this.#listeners.get(event.type)?.size ?? 0) > 0);
  }

  /** Calls the listeners of each event; a failing listener is logged and the others still run. */
  emit(events: readonly FlowEvent[]): void {
    for (const event of events) {
      for (const listener of [...(this.#listeners.get(event.type) ?? []), ...(this.#listeners.get('*') ?? [])]) {
        try {
          const result = listener(event);
          if (result instanceof Promise) result.catch((error: unknown) => this.#failed(event, error));
        } catch (error) {
          this.#failed(event, error);
        }
      }
    }
  }

  /** Calls the listeners of a circuit event (`*` is for flow events only); a failing listener is logged. */
  emitCircuit(event: CircuitEvent): void {
    for (const listener of [...(this.#listeners.get(event.type) ?? [])]) {
      try {
        const result = listener(event);
        if (result instanceof Promise) result.catch((error: unknown) => this.#failed(event, error));
      } catch (error) {
        this.#failed(event, error);
      }
    }
  }

  #failed(event: FlowEvent | CircuitEvent, error: unknown): void {
    this.#logger.warn('verikit.event.listener-failed', {
      ...('flowId' in event ? { flowId: event.flowId } : { member: event.member }),
      type: event.type,
      error: errorCode(error),
    });
  }
}

/**
 * Tells this engine's `verikit.on` listeners the lifecycle events the change caused, once: only the instance whose
 * commit caused them does. A failing listener is logged by the listeners, never the committing caller's error.
 */
export function emitLifecycleEvents(listeners: LifecycleListeners): AfterCommitStep {
  return (change) => {
    if (change.events.length > 0) listeners.emit(change.events);
  };
}
