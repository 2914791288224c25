import type { Logger } from '@verikit/provider';
import { FlowNotFoundError } from '../errors/flow-not-found-error.js';
import { errorCode } from '../logging/error-code.js';
import type { EffectRequest } from '../flows/flow-context.js';
import type { FlowStore, StoreCall } from '../store/flow-store.js';
import { timerSendClaimKey } from '../keys/store-keys.js';
import type { FlowTimers, TakenTimer } from '../store/flow-timers.js';
import type { Clock } from '../time/clock.js';
import { pollWeakly } from '../time/poll-weakly.js';
import type { EffectRunner } from './effect-runner.js';
import type { FlowRecords } from './flow-records.js';

/** Options of the flows' timers (`createVerikit({ timers })`). */
export interface TimerOptions {
  /**
   * How often this instance looks for due timers, in ms. Default 1000; 0: never by itself, only when
   * `verikit.runDueTimers()` is called (a simulation or a test on a manual clock).
   */
  pollMs?: number;
  /**
   * How long a taken timer is held by the instance that took it, in ms: if that instance dies, another takes the timer
   * once this has passed. Default 5000.
   */
  leaseMs?: number;
}

/** The timer options with their defaults. */
export interface TimerSettings {
  readonly pollMs: number;
  readonly leaseMs: number;
}

/** Timers taken per store command. */
const batch = 50;

/** The timer options with their defaults applied. */
export function resolveTimerOptions(options: TimerOptions | undefined): TimerSettings {
  return { pollMs: options?.pollMs ?? 1000, leaseMs: options?.leaseMs ?? 5000 };
}

/**
 * Carries out the flows' timers: takes the due ones under a lease, applies a `timer` event to each flow through the
 * commit path (under the send limit: an escalation is a send like a resend), runs the effects it committed, and sets
 * the timer to the flow's next wake (`FlowDefinition.wakeAt`) or removes it. A timer only acts: a flow read after its
 * due time is the same whether or not it ran (docs/decisions/0005-time-is-data.md), and a second `timer` event finds
 * nothing due, so a timer two instances carry out changes its flow once (compare-and-set).
 */
export class TimerWorker {
  readonly #settings: TimerSettings;
  readonly #deps: TimerWorkerDeps;
  #running: Promise<number> | undefined;
  #again = false;
  #closed = false;
  readonly #stopPoll: () => void;

  constructor(settings: TimerSettings, deps: TimerWorkerDeps) {
    this.#settings = settings;
    this.#deps = deps;
    this.#stopPoll = pollWeakly(this, settings.pollMs, (worker) => void worker.runDue());
  }

  /**
   * Stops the poll; a pass asked for afterwards does nothing. Resolves once the pass running now (a receipt's
   * fallback being sent included) has ended, so nothing of this instance touches the store after it.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#stopPoll();
    await this.#running;
  }

  /**
   * One pass over the timers due now (on the engine's clock), started now or, when one is running, once it ends.
   * Resolves with how many timers changed their flow; never rejects (a failing store is logged, and a timer whose
   * flow could not be changed is taken again once its lease ends).
   */
  runDue(): Promise<number> {
    if (this.#closed) return Promise.resolve(0);
    if (this.#running !== undefined) {
      this.#again = true;
      return this.#running;
    }
    const running = (async () => {
      let acted = 0;
      try {
        do {
          this.#again = false;
          acted += await this.#pass();
        } while (this.#again && !this.#closed);
      } catch (error) {
        this.#deps.logger.warn('verikit.timer.pass-failed', { error: errorCode(error) });
      } finally {
        this.#running = undefined;
      }
      return acted;
    })();
    this.#running = running;
    return running;
  }

  async #pass(): Promise<number> {
    const { timers, clock } = this.#deps;
    let acted = 0;
    for (;;) {
      const taken = await timers.take(clock.now(), this.#settings.leaseMs, batch);
      const results = await Promise.all(taken.map((timer) => this.#carryOut(timer)));
      acted += results.filter(Boolean).length;
      if (taken.length < batch) return acted;
    }
  }

  /** True when this instance claimed the effects (a timer commits at most one): it, and no other, makes them. */
  async #claim(pending: readonly EffectRequest[], call: StoreCall | undefined): Promise<boolean> {
    for (const effect of pending)
      if (!(await this.#deps.store.claim(timerSendClaimKey(effect.id), this.#deps.claimMs, call))) return false;
    return true;
  }

  /** Applies one timer to its flow; true when the flow changed. A failure is logged and leaves the timer leased. */
  async #carryOut(taken: TakenTimer): Promise<boolean> {
    const { records, effects, timers, logger, within } = this.#deps;
    const { flowId } = taken;
    try {
      return await within(async (call) => {
        let next: number | undefined;
        let changed = false;
        try {
          const loaded = await records.load(flowId, call);
          const { definition } = loaded.flow;
          const committed = await effects.commitUnderSendLimit(flowId, definition, { type: 'timer' }, loaded, call);
          changed = committed.changed;
          let latest = committed.loaded;
          // The send this timer committed, or one an earlier wake committed and perhaps never made (its instance
          // died): made by whoever claims it first, so once (decision 1561).
          const pending = changed ? committed.effects : [definition.timerEffect?.(latest.snapshot)].filter(isEffect);
          if (pending.length > 0 && (await this.#claim(pending, call))) {
            await effects.run(flowId, pending, committed.view, {}, latest, call);
            latest = await records.load(flowId, call);
          }
          next = definition.wakeAt?.(latest.snapshot);
          if (changed) logger.debug('verikit.timer.acted', { flowId });
        } catch (error) {
          if (!FlowNotFoundError.isInstance(error)) throw error;
        }
        await timers.settle(taken, next);
        return changed;
      });
    } catch (error) {
      logger.warn('verikit.timer.failed', { flowId, error: errorCode(error) });
      return false;
    }
  }
}

function isEffect(effect: EffectRequest | undefined): effect is EffectRequest {
  return effect !== undefined;
}

/** What a {@link TimerWorker} works with. */
export interface TimerWorkerDeps {
  readonly timers: FlowTimers;
  /** Where the claims of the timers' sends are taken. */
  readonly store: FlowStore;
  /** How long a send's claim lives: past its effect's deadline. */
  readonly claimMs: number;
  readonly records: FlowRecords;
  readonly effects: EffectRunner;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Runs work as one engine call (the store's shared deadline). */
  readonly within: <T>(work: (call: StoreCall | undefined) => Promise<T>) => Promise<T>;
}
