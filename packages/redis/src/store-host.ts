import { StoreError, VerikitError } from '@verikit/core';
import { safeStoreCause } from '@verikit/core/internal';
import type { CommandDeadline } from './command-deadline.js';
import type { RedisCommandClient } from './lua-script.js';

/** What a store's companion (the event outbox, the flow timers) needs of a Redis flow store: its connection and key names. */
export interface RedisStoreHost {
  readonly client: unknown;
  connect(): Promise<void>;
  redisKey(key: string): string;
}

/**
 * Runs one command of a companion on the store's connection under `deadline`; a failure is a `StoreError` saying what
 * `operation` failed (a typed error, a deadline's, passes as it is).
 */
export async function hostCommand<T>(
  host: RedisStoreHost,
  deadline: CommandDeadline,
  operation: string,
  work: (client: RedisCommandClient) => Promise<T>,
): Promise<T> {
  try {
    await host.connect();
    return await deadline.run(() => work(host.client as RedisCommandClient));
  } catch (error) {
    if (VerikitError.isInstance(error)) throw error;
    throw new StoreError(`the flow store failed to ${operation}`, { cause: safeStoreCause(error) });
  }
}
