import { isProvablyUnsent, RateLimitedError, safeProviderMessage, VerikitError, type Logger } from '@verikit/provider';
import { FlowNotFoundError } from '../errors/flow-not-found-error.js';
import type {
  EffectDefinition,
  EffectMemory,
  FlowDefinition,
  FlowEnvironment,
  InternalEvent,
} from '../flows/flow-definition.js';
import type { EffectRequest, FlowContextBase, FlowError } from '../flows/flow-context.js';
import { errorCode } from '../logging/error-code.js';
import type { CallDeadlines } from './call-deadlines.js';
import { acceptSilently, type CommitLoop, type Committed } from './commit-loop.js';
import { deliveryRoutesOf } from '../inbound/delivery-receipts.js';
import type { FlowRecords, Loaded } from './flow-records.js';
import type { SendLimit } from './send-limit.js';
import type { FlowView, LazyView } from '../flows/view.js';
import type { FlowStore, StoreCall } from '../store/flow-store.js';
import type { Clock } from '../time/clock.js';
import type { AnyMachineSnapshot } from 'xstate';
import type { CallOutcome, EngineTelemetry } from '../telemetry/engine-telemetry.js';

type Outcome =
  | { ok: true; result: Record<string, unknown> }
  | { ok: false; error: FlowError; provablyUnsent: boolean }
  | { ok: 'unknown' };

/**
 * A provider error as a flow shows (and stores) it: our typed errors keep their code, and their message made
 * safe (digit runs masked, cut to 200 characters), since a provider's message may echo a BVN/NIN or a code;
 * anything else is generic.
 */
function toFlowError(error: unknown): FlowError {
  if (VerikitError.isInstance(error))
    return { code: error.code, message: safeProviderMessage(error.message) ?? 'the provider call failed' };
  return { code: 'provider_error', message: 'the provider call failed' };
}

/** A failed route write is tried again after `routeRetryFirstMs`, doubling up to `routeRetryMaxMs`, for this long. */
const routeRetryForMs = 60_000;
const routeRetryFirstMs = 200;
const routeRetryMaxMs = 5000;

/** A store failure worth another try: the store says so (an outage, a deadline), not a refusal or a bug. */
function isRetryable(error: unknown): boolean {
  return VerikitError.isInstance(error) && error.isRetryable;
}

/** What a call came to, as logs and telemetry say it: who answered (`sentBy` of a composition), and how. */
function outcomeOf(outcome: Outcome, provider: string): CallOutcome {
  if (outcome.ok === 'unknown') return { provider, outcome: 'unknown' };
  if (!outcome.ok) return { provider, outcome: outcome.error.code };
  const sentBy = outcome.result.sentBy;
  return { provider: typeof sentBy === 'string' ? sentBy : provider, outcome: 'ok' };
}

/** What the effect runner uses. */
export interface EffectRunnerDeps {
  readonly commits: CommitLoop;
  readonly records: FlowRecords;
  readonly store: FlowStore;
  readonly clock: Clock;
  readonly env: FlowEnvironment;
  readonly logger: Logger;
  readonly telemetry: EngineTelemetry;
  readonly read: (flowId: string, call?: StoreCall) => Promise<FlowView>;
  /** Admits the sends a result starts by itself (a phone flow's fallback to its next channel). */
  readonly limits?: SendLimit;
  /** The deadlines of provider calls, shared by the calls that start together (decision 1470). */
  readonly deadlines: CallDeadlines;
}

/**
 * Runs committed effects: the provider call each one names (through its flow's definition), under a
 * deadline, with the result fed back to the flow as an event through the commit loop.
 */
export class EffectRunner {
  readonly #deps: EffectRunnerDeps;
  /** Route writes waiting for their next try, by timer, with the try. */
  readonly #routeRetries = new Map<ReturnType<typeof setTimeout>, () => Promise<void>>();
  /** Route writes being tried now. */
  readonly #routeWrites = new Set<Promise<void>>();
  #closed = false;

  constructor(deps: EffectRunnerDeps) {
    this.#deps = deps;
  }

  /**
   * The engine is closing: each route write waiting for its next try is tried once more now (one that fails is
   * logged as lost), and this resolves once every route write under way has ended, so the store may be closed after.
   */
  async close(): Promise<void> {
    this.#closed = true;
    const last = [...this.#routeRetries].map(([timer, tryAgain]) => {
      clearTimeout(timer);
      return tryAgain();
    });
    this.#routeRetries.clear();
    await Promise.all([...last, ...this.#routeWrites]);
  }

  /**
   * Writes route keys to a flow that a committed change learned of outside its snapshot (the ids a
   * send returned, which its delivery receipts name), living as long as the flow's record. The flow stands whatever
   * happens here; without its routes, only its receipts would find no flow (and a failed delivery no fallback). So a
   * write that fails with a retryable error (a store that is briefly out: a Redis Cluster master being replaced) is
   * tried again after the call, every 200 ms to 5 s for up to a minute; one that fails for good is logged.
   */
  async #addReceiptRoutes(
    flowId: string,
    keys: readonly string[],
    snapshot: AnyMachineSnapshot,
    call: StoreCall | undefined,
  ): Promise<void> {
    const { records, store, clock, logger } = this.#deps;
    const retryUntil = Date.now() + routeRetryForMs;
    try {
      // The first try inline: the retries' closures are made only when a write failed.
      const ttl = records.ttlFor(snapshot, clock.now());
      for (const key of keys) await store.setRoute(key, flowId, ttl, call);
    } catch (error) {
      if (isRetryable(error) && !this.#closed) this.#retryRoutes(flowId, keys, snapshot, retryUntil, 0);
      else logger.warn('verikit.route.failed', { flowId, error: errorCode(error) });
    }
  }

  /** Tries {@link #addReceiptRoutes}'s write again after a pause growing with `attempt`, until `retryUntil`. */
  #retryRoutes(
    flowId: string,
    keys: readonly string[],
    snapshot: AnyMachineSnapshot,
    retryUntil: number,
    attempt: number,
  ): void {
    const { records, store, clock, logger } = this.#deps;
    const write = async () => {
      const ttl = records.ttlFor(snapshot, clock.now());
      for (const key of keys) await store.setRoute(key, flowId, ttl, undefined);
    };
    const tryAgain = (): Promise<void> => {
      const written = write().then(
        () => logger.info('verikit.route.retried', { flowId, retries: attempt + 1 }),
        (error: unknown) => {
          if (isRetryable(error) && !this.#closed && Date.now() < retryUntil)
            this.#retryRoutes(flowId, keys, snapshot, retryUntil, attempt + 1);
          else logger.warn('verikit.route.failed', { flowId, error: errorCode(error) });
        },
      );
      this.#routeWrites.add(written);
      return written.finally(() => this.#routeWrites.delete(written));
    };
    const timer = setTimeout(
      () => {
        this.#routeRetries.delete(timer);
        void tryAgain();
      },
      Math.min(routeRetryFirstMs * 2 ** attempt, routeRetryMaxMs),
    );
    timer.unref?.();
    this.#routeRetries.set(timer, tryAgain);
  }

  /**
   * Runs the committed effects one after another, feeding each result back, and then the effects a result
   * starts by itself (a fallback's send); returns the last view. `call`: the engine call's share of the store.
   */
  async run(
    flowId: string,
    effects: readonly EffectRequest[],
    view: LazyView,
    memory: EffectMemory,
    committedHere: Loaded,
    call?: StoreCall,
  ): Promise<FlowView> {
    const { logger, env } = this.#deps;
    let latest = view;
    const { definition } = committedHere.flow;
    let hint: Loaded | undefined = committedHere;
    const queue = [...effects];
    for (let effect = queue.shift(); effect !== undefined; effect = queue.shift()) {
      const runner = definition.effects[effect.kind]!;
      const current = effect;
      const outcome = await this.#deps.telemetry.providerCall(
        { flowId, effect, send: runner.send, provider: env.provider.name },
        () => this.#call(flowId, runner, current, memory, hint, call),
        (settled) => outcomeOf(settled, env.provider.name),
      );
      try {
        if (outcome.ok === 'unknown') {
          const read = await this.#deps.read(flowId, call);
          latest = () => read;
          hint = undefined;
        } else {
          const event: Omit<InternalEvent, 'now'> = outcome.ok
            ? { type: 'effect-succeeded', effectId: effect.id, result: outcome.result }
            : {
                type: 'effect-failed',
                effectId: effect.id,
                error: outcome.error,
                provablyUnsent: outcome.provablyUnsent,
              };
          // A send's ids route its delivery receipts to this flow: written with the change where the store can.
          const routes =
            outcome.ok && runner.send ? deliveryRoutesOf(this.#deps.env.secrets, outcome.result) : undefined;
          const committed = await this.commitUnderSendLimit(flowId, definition, event, hint, call, routes);
          latest = committed.view;
          hint = committed.changed ? committed.loaded : undefined;
          if (routes !== undefined && committed.changed && !committed.routesWritten)
            await this.#addReceiptRoutes(flowId, routes, committed.loaded.snapshot, call);
          queue.push(...committed.effects);
        }
      } catch (error) {
        if (!FlowNotFoundError.isInstance(error)) throw error;
      }
      logger.debug('verikit.effect.settled', {
        flowId,
        kind: committedHere.record.kind,
        effect: effect.kind,
        outcome: outcomeOf(outcome, env.provider.name).outcome,
      });
    }
    return latest();
  }

  /**
   * Commits an effect's result (or a failed receipt's `delivery-failed`, which `applyProviderEvent` raises). An
   * event that starts a send by itself (a fallback) takes the send limit
   * like a user's resend; when the limit refuses, the result is committed with `fallback: false`, so the
   * flow shows the failure instead of falling back, and nothing of the result is lost. `routesWithWrite`: the
   * receipt routes of a send's result, written with the change where the store can ({@link Committed.routesWritten}).
   */
  async commitUnderSendLimit(
    flowId: string,
    definition: FlowDefinition,
    event: Omit<InternalEvent, 'now'>,
    hint: Loaded | undefined,
    call: StoreCall | undefined,
    routesWithWrite?: readonly string[],
  ): Promise<Committed> {
    const { commits, limits, env, logger } = this.#deps;
    const take = limits?.forEvent(definition, env, undefined, call);
    try {
      return await commits.commit(
        flowId,
        (_loaded, now) => ({
          // Not `{ ...event, now }`: on node 20's V8 a fresh object spread and given a new key costs microseconds.
          event: Object.assign({}, event, { now }) as InternalEvent,
          onRefused: acceptSilently,
          beforeWrite: (current, effects, at) => take?.(current.record.context, effects, at),
          routesWithWrite,
        }),
        hint,
        call,
      );
    } catch (error) {
      if (!RateLimitedError.isInstance(error)) throw error;
      logger.info('verikit.flow.fallback-refused', { flowId, error: errorCode(error) });
      return commits.commit(
        flowId,
        (_loaded, now) => ({
          event: { ...event, now, fallback: false } as unknown as InternalEvent,
          onRefused: acceptSilently,
          routesWithWrite,
        }),
        undefined,
        call,
      );
    }
  }

  /**
   * Makes the provider call with a deadline. Past the deadline the call is aborted, the flow is moved
   * on as if its deadline had passed (whatever the injected clock says), and a late success is still
   * applied if it comes.
   */
  async #call(
    flowId: string,
    runner: EffectDefinition,
    effect: EffectRequest,
    memory: EffectMemory,
    committed: Loaded | undefined,
    storeCall: StoreCall | undefined,
  ): Promise<Outcome> {
    const { records, env, logger } = this.#deps;
    // The deadline and its signal are shared with the calls that started within a few milliseconds (decision 1470).
    const deadline = this.#deps.deadlines.window(env.policies.effectTimeoutMs);
    const context = { signal: deadline.signal, idempotencyKey: effect.id, logger };
    // Every success names the provider that made it, unless the definition reports another (`sentBy` of a composition).
    const call = runner
      .run({
        flowId,
        input: effect.input,
        context,
        memory,
        env,
        // The record committed with this effect holds what the call needs; read the store only without it.
        committedContext: async () => (committed ?? (await records.load(flowId, storeCall))).record.context,
      })
      .then((result) => ({ sentBy: env.provider.name, ...result }));
    // The call's outcome, or undefined once the deadline passed first (the call is then aborted).
    const settled = await deadline.race(call);
    // Whether a failed call may still have sent is decided by one rule, `isProvablyUnsent` (decision 0920).
    if (settled?.ok === false)
      return { ok: false, error: toFlowError(settled.error), provablyUnsent: isProvablyUnsent(settled.error) };
    if (settled !== undefined) return settled;
    call.then(
      (result) => this.#applyQuietly(flowId, (now) => ({ type: 'effect-succeeded', now, effectId: effect.id, result })),
      () => undefined,
    );
    await this.#applyQuietly(
      flowId,
      (now, context) => ({
        type: 'tick',
        now: context.effect?.id === effect.id ? Math.max(now, context.effect.deadline) : now,
      }),
      storeCall,
    );
    return { ok: 'unknown' };
  }

  /** Applies an internal event; a refusal (the flow moved on) or a vanished flow is not an error here. */
  async #applyQuietly(
    flowId: string,
    makeEvent: (now: number, context: FlowContextBase) => InternalEvent,
    call?: StoreCall,
  ): Promise<void> {
    try {
      await this.#deps.commits.commit(
        flowId,
        (loaded, now) => ({
          event: makeEvent(now, loaded.snapshot.context as FlowContextBase),
          onRefused: acceptSilently,
        }),
        undefined,
        call,
      );
    } catch (error) {
      this.#deps.logger.warn('verikit.effect.apply-failed', { flowId, error: errorCode(error) });
    }
  }
}
