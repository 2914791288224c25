import { sendsLimitKey } from '../keys/store-keys.js';
import { RateLimitedError } from '@verikit/provider';
import type { FlowDefinition, FlowEnvironment } from '../flows/flow-definition.js';
import type { FlowPolicies } from '../flows/policies.js';
import type { EffectRequest } from '../flows/flow-context.js';
import type { SendGuard } from '../guard/send-guard.js';
import type { FlowStore, StoreCall } from '../store/flow-store.js';

const windowMs = 60 * 60_000;

/** The phone number a flow's context holds, for the send guard; undefined for flows without one. */
function phoneNumberOf(context: Readonly<Record<string, unknown>>): string | undefined {
  const { phoneNumber } = context;
  return typeof phoneNumber === 'string' ? phoneNumber : undefined;
}

/** The flow's id, under which the send guard keeps what it read of the flow's number; undefined for none. */
function flowIdOf(context: Readonly<Record<string, unknown>>): string | undefined {
  const { flowId } = context;
  return typeof flowId === 'string' ? flowId : undefined;
}

/** The channel a phone flow's next send goes on, for its price; undefined for flows of no channel (USSD, BVN/NIN). */
function channelOf(context: Readonly<Record<string, unknown>>): string | undefined {
  const { channel, channels } = context;
  if (typeof channel === 'string') return channel;
  // A start on a plan's inbound step sends nothing: it is counted (it holds a reference) but costs no money.
  if (context.inbound !== undefined) return undefined;
  return Array.isArray(channels) && typeof channels[0] === 'string' ? channels[0] : undefined;
}

/**
 * The per-recipient send limit (`maxSendsPerHour`), shared by every flow to one phone number or
 * identity number, behind the send guard (per client, per number prefix, global, countries). Both are
 * taken before the commit that starts a send, so a refused send is never committed; a unit taken by a
 * commit that then loses a race is not given back.
 */
export class SendLimit {
  readonly #store: FlowStore;
  readonly #policies: Readonly<FlowPolicies>;
  readonly #guard: SendGuard | undefined;

  constructor(store: FlowStore, policies: Readonly<FlowPolicies>, guard?: SendGuard) {
    this.#store = store;
    this.#policies = policies;
    this.#guard = guard;
  }

  /**
   * Admits one send: the guard first (nothing of the recipient's limit is used by a send it refuses),
   * then one unit of the recipient's limit; when that refuses (or fails), the guard's units are given
   * back, so a refused send consumes nothing anywhere. The guard takes both, in one step when its store can
   * (decision 1760).
   */
  async admit(
    key: string,
    context: Readonly<Record<string, unknown>>,
    client: string | undefined,
    now: number,
    call?: StoreCall,
  ): Promise<void> {
    if (this.#guard === undefined) return this.take(key, now, call);
    const attempt = {
      phoneNumber: phoneNumberOf(context),
      client,
      channel: channelOf(context),
      flowId: flowIdOf(context),
    };
    await this.#guard.check(attempt, now, call, {
      store: this.#store,
      count: { key: sendsLimitKey(key), limit: this.#policies.maxSendsPerHour, windowMs, now },
      refused: (resetAt) => this.#refused(resetAt, now),
    });
  }

  /** Takes one unit for `key`; a `RateLimitedError` (with when the window ends) when none is left. */
  async take(key: string, now: number, call?: StoreCall): Promise<void> {
    const result = await this.#store.consume(sendsLimitKey(key), this.#policies.maxSendsPerHour, windowMs, now, call);
    if (!result.allowed) throw this.#refused(result.resetAt, now);
  }

  /** The refusal of a recipient whose limit is reached until `resetAt`. */
  #refused(resetAt: number, now: number): RateLimitedError {
    return new RateLimitedError(
      `the limit of ${this.#policies.maxSendsPerHour} sends per hour for this recipient is reached`,
      resetAt,
      { retryAfterMs: Math.max(0, resetAt - now) },
    );
  }

  /**
   * For the commits of one user event: admits one send the first time a computed change would start
   * one, and none on the retries after a conflict.
   */
  forEvent(
    definition: FlowDefinition,
    env: FlowEnvironment,
    client?: string,
    call?: StoreCall,
  ): (
    context: Readonly<Record<string, unknown>>,
    effects: readonly EffectRequest[],
    now: number,
  ) => Promise<void> | undefined {
    let taken = false;
    return (context, effects, now) => {
      if (taken || !effects.some((effect) => definition.effects[effect.kind]?.send === true)) return undefined;
      taken = true;
      return this.admit(definition.sendLimitKey(context, env), context, client, now, call);
    };
  }
}
