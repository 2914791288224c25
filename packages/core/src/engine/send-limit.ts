import { RateLimitedError } from '@verikit/provider';
import type { FlowDefinition, FlowEnvironment } from '../flows/flow-definition.js';
import type { FlowPolicies } from '../flows/policies.js';
import type { EffectRequest } from '../flows/shared.js';
import type { FlowStore } from '../store/flow-store.js';

const windowMs = 60 * 60_000;

/**
 * The per-recipient send limit (`maxSendsPerHour`), shared by every flow to one phone number or
 * identity number. A unit is taken before the commit that starts a send, so a refused send is never
 * committed; a unit taken by a commit that then loses a race is not given back.
 */
export class SendLimit {
  readonly #store: FlowStore;
  readonly #policies: Readonly<FlowPolicies>;

  constructor(store: FlowStore, policies: Readonly<FlowPolicies>) {
    this.#store = store;
    this.#policies = policies;
  }

  /** Takes one unit for `key`; a `RateLimitedError` (with when the window ends) when none is left. */
  async take(key: string, now: number): Promise<void> {
    const result = await this.#store.consume(`sends:${key}`, this.#policies.maxSendsPerHour, windowMs, now);
    if (!result.allowed) {
      throw new RateLimitedError(`the limit of ${this.#policies.maxSendsPerHour} sends per hour for this recipient is reached`, result.resetAt);
    }
  }

  /**
   * For the commits of one user event: takes one unit the first time a computed change would start a
   * send, and none on the retries after a conflict.
   */
  forEvent(definition: FlowDefinition, env: FlowEnvironment): (context: Readonly<Record<string, unknown>>, effects: readonly EffectRequest[], now: number) => Promise<void> | undefined {
    let taken = false;
    return (context, effects, now) => {
      if (taken || !effects.some((effect) => definition.effects[effect.kind]?.send === true)) return undefined;
      taken = true;
      return this.take(definition.sendLimitKey(context, env), now);
    };
  }
}
