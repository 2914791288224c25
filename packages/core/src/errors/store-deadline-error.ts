import type { VerikitErrorOptions } from '@verikit/provider';
import { StoreError } from './store-error.js';

/** Options of a {@link StoreDeadlineError}. */
export interface StoreDeadlineErrorOptions extends VerikitErrorOptions {
  /** The deadline that passed, in ms. */
  deadlineMs: number;
  /** Whether the write that was cut short may have been applied (see {@link StoreDeadlineError.written}). */
  written: 'no' | 'unknown';
}

/**
 * The store gave no answer before the deadline of the call (or of one command): a store that hangs rather than
 * refuses. A `StoreError` (code `store_unavailable`, retryable) that names the deadline and says what is known of
 * the write it cut short. Every write is one atomic command (a flow's compare-and-set is one script), so nothing is
 * ever half-written: the write was applied whole or not at all.
 */
export class StoreDeadlineError extends StoreError {
  /** The deadline that passed, in ms (`commandTimeoutMs` of a Redis store: all the store commands of one engine call). */
  readonly deadlineMs: number;
  /**
   * `no`: the command cut short wrote nothing (a read, or a write never sent). `unknown`: a write was sent and not
   * answered; the store may still apply it, whole, when it wakes. A flow's version makes a retry safe either way: read
   * the flow to know.
   */
  readonly written: 'no' | 'unknown';

  constructor(message: string, options: StoreDeadlineErrorOptions) {
    const { deadlineMs, written, ...rest } = options;
    super(message, rest);
    this.name = 'StoreDeadlineError';
    this.deadlineMs = deadlineMs;
    this.written = written;
  }

  static override isInstance(error: unknown): error is StoreDeadlineError {
    return (
      StoreError.isInstance(error) &&
      typeof (error as Partial<StoreDeadlineError>).deadlineMs === 'number' &&
      ((error as StoreDeadlineError).written === 'no' || (error as StoreDeadlineError).written === 'unknown')
    );
  }
}
