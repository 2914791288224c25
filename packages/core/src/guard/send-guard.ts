import { guardLimitKeyPrefix } from '../keys/store-keys.js';
import { InvalidInputError, RateLimitedError, VerikitError, type Logger } from '@verikit/provider';
import { StoreError } from '../errors/store-error.js';
import type { SecretBox } from '../secrets/secrets.js';
import { safeStoreCause } from '../store/safe-store-cause.js';
import type { GuardLimit, GuardSettings } from './guard-options.js';
import { numberFactsOf, type NumberFacts } from './number-prefix.js';
import { CostLedger, type CostReport } from './cost-ledger.js';
import { RatePricer } from './rate-card.js';
import { ConversionTripwire } from './conversion-tripwire.js';
import type { FlowStore, StoreCall } from '../store/flow-store.js';
import type {
  GuardCount,
  GuardLimitName,
  GuardRateLimiter,
  GuardRefusal,
  RecipientCount,
  SendGuardStore,
} from '../store/send-guard-store.js';

/** The limits counted per sender (a client, a prefix, a number), whose keys are often new; the rest share one key. */
const perSender: ReadonlySet<GuardLimitName> = new Set(['per-client', 'per-prefix', 'wrong-references-per-number']);

const hour = 3_600_000;
const day = 24 * hour;

/** One send about to be committed, as the guard sees it. */
export interface SendAttempt {
  /** The recipient, for the country and the per-prefix limit; absent when the flow holds none (BVN/NIN). */
  readonly phoneNumber?: string | undefined;
  /** Who asks for it, for the per-client limit; absent when the caller gave none. */
  readonly client?: string | undefined;
  /** The channel of a phone flow's send (`sms`, `voice`, `whatsapp`), for its price; absent for other flows. */
  readonly channel?: string | undefined;
  /** The flow it is for: what the guard read of its number is kept under it, never under the number (decision 2040). */
  readonly flowId?: string | undefined;
}

interface CountedLimit {
  readonly name: GuardLimitName;
  /** What one unit is, for the refusal's message: `sends`, `wrong references`. */
  readonly unit: string;
  readonly limit: GuardLimit;
  readonly limiter: GuardRateLimiter;
  /** What the limiter was made for: a store's `consumeAll` takes it. */
  readonly spec: GuardCount['spec'];
  /** One key for every sender (not per client, prefix or number): a store's `consumeAll` takes it. */
  readonly shared: boolean;
  /** The counted key, already hashed; undefined when the limit does not apply to this attempt. */
  keyOf(attempt: SendAttempt, facts: NumberFacts | undefined): string | undefined;
  /** Units the attempt takes: 1, or its price in millionths for a budget. */
  amountOf?(attempt: SendAttempt, facts: NumberFacts | undefined): number;
  /** The refusal's message, when not `the <name> limit of <points> <unit> per <window> s is reached`. */
  refusal?: string;
}

/** One limit that applies to an attempt: its key and the units it takes, as a store's `consumeAll` takes them. */
interface Count extends GuardCount {
  readonly counted: CountedLimit;
}

/** A limiter's refusal (rate-limiter-flexible's `RateLimiterRes`), told apart from a backend failure. */
function refusalOf(reason: unknown): { msBeforeNext: number } | undefined {
  if (reason instanceof Error || typeof reason !== 'object' || reason === null) return undefined;
  const { msBeforeNext } = reason as { msBeforeNext?: unknown };
  return typeof msBeforeNext === 'number' && Number.isFinite(msBeforeNext) ? { msBeforeNext } : undefined;
}

/** One send that went out, as the guard counts it after its commit. */
export interface SentMessage {
  readonly phoneNumber: string;
  /** Its flow, under which the guard kept what it read of the number at the check (`SendAttempt.flowId`). */
  readonly flowId: string | undefined;
  /** Who sent it (the flow's `sentBy`). */
  readonly provider: string | undefined;
  readonly channel: string | undefined;
}

/** Gives back every unit an admitted attempt took (the send did not happen after all); never throws. */
type GuardRelease = () => Promise<void>;

/** The recipient's send limit, taken by {@link SendGuard.check} after the guard's counts. */
export interface RecipientLimit {
  /** The flow store whose counter it is (`FlowStore.consume`). */
  readonly store: FlowStore;
  readonly count: RecipientCount;
  /** The error of its refusal; `resetAt`, when its window ends, on the engine's clock. */
  readonly refused: (resetAt: number) => Error;
}

/**
 * The send guard (docs/abuse.md, docs/decisions/0030-send-guard.md): before a send is committed, it
 * refuses a number of a country not allowed, then takes one unit of each limit that applies (per
 * client, per number prefix, global, in that order). A refused attempt consumes nothing: it gives
 * back the units it took (a limiter's refusal takes nothing itself, see `GuardRateLimiter`), so one
 * limit's refusals do not use up another's; and an admitted attempt refused later (the per-number
 * limit) gives its units back through the release `check` returns. Keys are keyed hashes (the engine's secret): no
 * number, prefix or client address is ever a key name or a log field.
 */
export class SendGuard {
  readonly #settings: GuardSettings;
  readonly #secrets: SecretBox;
  readonly #logger: Logger;
  readonly #limits: readonly CountedLimit[];
  readonly #dialLimits: readonly CountedLimit[];
  readonly #digits: number;
  readonly #pricer: RatePricer | undefined;
  readonly #ledger: CostLedger | undefined;
  readonly #tripwire: ConversionTripwire | undefined;
  readonly #store: SendGuardStore;
  /**
   * What was read of the numbers of the flows seen lately, by flow id (never by number: decision 2040): a send is read
   * once at its check and again when it went out.
   */
  readonly #facts = new Map<string, NumberFacts>();

  constructor(settings: GuardSettings, deps: { store: SendGuardStore; secrets: SecretBox; logger: Logger }) {
    this.#settings = settings;
    this.#secrets = deps.secrets;
    this.#logger = deps.logger;
    this.#digits = settings.perPrefix?.digits ?? 0;
    this.#pricer = settings.prices && new RatePricer(settings.prices);
    this.#ledger = settings.prices && new CostLedger(settings.prices.currency);
    // At the same digits the tripwire reads a number as the guard does: through the guard, one parse for both.
    const shared =
      settings.tripwire?.digits === this.#digits
        ? (phoneNumber: string, flowId: string | undefined) => this.#factsOf(phoneNumber, flowId)
        : undefined;
    this.#tripwire = settings.tripwire && new ConversionTripwire(settings.tripwire, { ...deps, factsOf: shared });
    this.#store = deps.store;
    const counted = (
      name: GuardLimitName,
      limit: GuardLimit | undefined,
      keyOf: CountedLimit['keyOf'],
      unit = 'sends',
      money?: Pick<CountedLimit, 'amountOf' | 'refusal'>,
    ): CountedLimit[] => {
      if (limit === undefined) return [];
      const spec = {
        name,
        keyPrefix: guardLimitKeyPrefix(name),
        points: limit.points,
        durationSeconds: Math.ceil(limit.windowMs / 1000),
      };
      const shared = !perSender.has(name);
      return [{ name, unit, limit, keyOf, ...money, spec, shared, limiter: deps.store.limiter(spec) }];
    };
    this.#limits = [
      ...counted('per-client', settings.perClient, (attempt) =>
        attempt.client === undefined ? undefined : this.#secrets.hash('guard:client', attempt.client),
      ),
      ...counted('per-prefix', settings.perPrefix, (_attempt, facts) =>
        facts === undefined ? undefined : this.#secrets.hash('guard:prefix', facts.prefix),
      ),
      ...counted('global', settings.global, () => 'all'),
      ...this.#budgetLimits(settings, counted),
    ];
    this.#dialLimits = [
      ...counted(
        'wrong-references-per-number',
        settings.wrongReferencesPerNumber,
        (attempt) =>
          attempt.phoneNumber === undefined ? undefined : this.#secrets.hash('guard:dialler', attempt.phoneNumber),
        'wrong references',
      ),
      ...counted('wrong-references', settings.wrongReferences, () => 'all', 'wrong references'),
    ];
  }

  /** The budget's limits: points in millionths of the currency, each send charged its ceiling price. */
  #budgetLimits(
    settings: GuardSettings,
    counted: (
      name: GuardLimitName,
      limit: GuardLimit | undefined,
      keyOf: CountedLimit['keyOf'],
      unit: string,
      money: Pick<CountedLimit, 'amountOf' | 'refusal'>,
    ) => CountedLimit[],
  ): CountedLimit[] {
    const { budget, prices } = settings;
    const pricer = this.#pricer;
    if (budget === undefined || prices === undefined || pricer === undefined) return [];
    const amountOf = (attempt: SendAttempt, facts: NumberFacts | undefined) =>
      pricer.ceilingOf(attempt.channel, facts?.country);
    const priced = (attempt: SendAttempt) => attempt.channel !== undefined;
    const limitOf = (amount: number | undefined, windowMs: number): GuardLimit | undefined =>
      amount === undefined ? undefined : { points: Math.round(amount * 1e6), windowMs };
    const refusal = (what: string, amount: number) => `the ${what} budget of ${amount} ${prices.currency} is spent`;
    const limits = [
      ...counted('budget-per-hour', limitOf(budget.perHour, hour), (a) => (priced(a) ? 'all' : undefined), 'money', {
        amountOf,
        refusal: refusal('hourly', budget.perHour ?? 0),
      }),
      ...counted('budget-per-day', limitOf(budget.perDay, day), (a) => (priced(a) ? 'all' : undefined), 'money', {
        amountOf,
        refusal: refusal('daily', budget.perDay ?? 0),
      }),
    ];
    for (const [country, given] of Object.entries(budget.countries ?? {})) {
      const keyOf = (attempt: SendAttempt, facts: NumberFacts | undefined) =>
        priced(attempt) && facts?.country === country ? country : undefined;
      limits.push(
        ...counted('country-budget-per-hour', limitOf(given.perHour, hour), keyOf, 'money', {
          amountOf,
          refusal: refusal(`hourly ${country}`, given.perHour ?? 0),
        }),
        ...counted('country-budget-per-day', limitOf(given.perDay, day), keyOf, 'money', {
          amountOf,
          refusal: refusal(`daily ${country}`, given.perDay ?? 0),
        }),
      );
    }
    return limits;
  }

  /**
   * Admits one dial of a dial-in reference from `phoneNumber` (the number the carrier reports), or throws a
   * `RateLimitedError` when that number, or every dialler together, gave too many wrong references lately. The
   * dial takes one unit of each; the release gives them back when the reference was right, so only wrong
   * references count (decision 1541).
   */
  async admitDial(phoneNumber: string, now: number, call?: StoreCall): Promise<GuardRelease> {
    return this.#take(this.#dialLimits, { phoneNumber }, undefined, now, call);
  }

  /**
   * Admits one send or throws: an `InvalidInputError` naming `phoneNumber` for a country not
   * allowed, a `RateLimitedError` (`retryAfterMs`, `retryAt` on the engine's clock) for a limit
   * reached, a `StoreError` when the counts cannot be read. Resolves with the release that gives
   * the units back when the send does not happen after all.
   *
   * With `recipient`, one unit of the recipient's limit is taken after the guard's counts, all or none: in the same
   * step when the guard counts in its flow store's own guard store and that offers `consumeWithRecipient` (decision
   * 1760), else by `store.consume`, the guard's units given back when it refuses or fails. Its refusal is
   * `recipient.refused(resetAt)`.
   */
  async check(attempt: SendAttempt, now: number, call?: StoreCall, recipient?: RecipientLimit): Promise<GuardRelease> {
    const facts = attempt.phoneNumber === undefined ? undefined : this.#factsOf(attempt.phoneNumber, attempt.flowId);
    if (facts !== undefined && !this.#allows(facts.country)) {
      this.#logger.warn('verikit.guard.refused', { limit: 'country' });
      throw new InvalidInputError([{ field: 'phoneNumber', message: 'is in a country this service does not send to' }]);
    }
    // Before any count is taken: a paused range costs nothing, and a refusal there takes no unit.
    if (attempt.phoneNumber !== undefined) this.#tripwire?.admit(attempt.phoneNumber, attempt.flowId, now);
    const together = this.#store.consumeWithRecipient;
    if (recipient === undefined || together === undefined || recipient.store.sendGuardStore?.() !== this.#store) {
      const release = await this.#take(this.#limits, attempt, facts, now, call);
      if (recipient === undefined) return release;
      try {
        const { count } = recipient;
        const result = await recipient.store.consume(count.key, count.limit, count.windowMs, count.now, call);
        if (!result.allowed) throw recipient.refused(result.resetAt);
      } catch (error) {
        await release();
        throw error;
      }
      return release;
    }
    const counts = this.#counts(this.#limits, attempt, facts);
    let refused: GuardRefusal | undefined;
    try {
      refused = await together.call(this.#store, counts, recipient.count, { call });
    } catch (reason) {
      throw this.#failure(reason);
    }
    if (refused?.index === counts.length) throw recipient.refused(recipient.count.now + refused.msBeforeNext);
    return this.#admitted(counts, refused, now, call);
  }

  /** Takes one unit of each limit that applies, or gives back what it took and throws the refusal. */
  async #take(
    limits: readonly CountedLimit[],
    attempt: SendAttempt,
    facts: NumberFacts | undefined,
    now: number,
    call: StoreCall | undefined,
  ): Promise<GuardRelease> {
    const taken: Count[] = [];
    const counts = this.#counts(limits, attempt, facts);
    const consumeAll = this.#store.consumeAll;
    if (consumeAll !== undefined && counts.length > 0) {
      // One step for every count, all or none (decision 1715).
      let refused: GuardRefusal | undefined;
      try {
        refused = await consumeAll.call(this.#store, counts, { call });
      } catch (reason) {
        throw this.#failure(reason);
      }
      return this.#admitted(counts, refused, now, call);
    }
    for (const count of counts) {
      const { counted, key, points } = count;
      try {
        await counted.limiter.consume(key, points, { call });
      } catch (reason) {
        await this.#giveBack(taken, call);
        const refusal = refusalOf(reason);
        if (refusal === undefined) throw this.#failure(reason);
        throw this.#refusal(counted, refusal.msBeforeNext, now);
      }
      taken.push(count);
    }
    return () => this.#giveBack(taken, call);
  }

  /** The limits that apply to `attempt`, with their keys and the units it takes. */
  #counts(limits: readonly CountedLimit[], attempt: SendAttempt, facts: NumberFacts | undefined): Count[] {
    const counts: Count[] = [];
    for (const counted of limits) {
      const key = counted.keyOf(attempt, facts);
      if (key === undefined) continue;
      const points = counted.amountOf === undefined ? 1 : counted.amountOf(attempt, facts);
      if (points > 0) counts.push({ counted, spec: counted.spec, key, points, shared: counted.shared });
    }
    return counts;
  }

  /** After a one-step count: the refusal of the count it names, or the release of every count. */
  #admitted(counts: readonly Count[], refused: GuardRefusal | undefined, now: number, call?: StoreCall): GuardRelease {
    if (refused !== undefined) {
      const counted = counts[refused.index]?.counted;
      if (counted === undefined) throw new StoreError('the send guard got an unexpected answer to its counts');
      throw this.#refusal(counted, refused.msBeforeNext, now);
    }
    return () => this.#giveBack(counts, call);
  }

  /** A count that failed (not refused), as the caller gets it. */
  #failure(reason: unknown): Error {
    return VerikitError.isInstance(reason)
      ? reason
      : new StoreError('the send guard could not count this send', { cause: safeStoreCause(reason) });
  }

  /** The error of a refused count (logged). */
  #refusal(counted: CountedLimit, msBeforeNext: number, now: number): RateLimitedError {
    const retryAfterMs = Math.max(0, Math.ceil(msBeforeNext));
    this.#logger.warn('verikit.guard.refused', { limit: counted.name, retryAfterMs });
    const { points, windowMs } = counted.limit;
    return new RateLimitedError(
      counted.refusal ??
        `the ${counted.name} limit of ${points} ${counted.unit} per ${Math.ceil(windowMs / 1000)} s is reached`,
      now + retryAfterMs,
      { retryAfterMs },
    );
  }

  /**
   * Whether {@link sent} and {@link verified} count anything: true with a tripwire or a rate card (`guard.prices`, the
   * cost ledger). Without either, what a commit announced changes nothing here, and the engine tells the guard nothing.
   */
  get countsOutcomes(): boolean {
    return this.#tripwire !== undefined || this.#ledger !== undefined;
  }

  /**
   * Counts one send that went out (its commit announced it: the `sent` lifecycle event): for the tripwire, and priced
   * on the rate card and added to the cost ledger. Never throws: the send is made.
   */
  sent(message: SentMessage, now: number): void {
    this.#tripwire?.sent(message.phoneNumber, message.flowId, now);
    if (this.#ledger === undefined) return;
    const { country } = this.#factsOf(message.phoneNumber, message.flowId);
    const priced = { provider: message.provider, channel: message.channel, country };
    this.#ledger.add(priced, this.#pricer!.microsOf(priced));
  }

  /** Counts one verification of a number sent to (of the flow `flowId`), for the tripwire. */
  verified(phoneNumber: string, flowId: string | undefined, now: number): void {
    this.#tripwire?.verified(phoneNumber, flowId, now);
  }

  /** The cost ledger as it stands; undefined without a rate card (`guard.prices`). */
  costs(): CostReport | undefined {
    return this.#ledger?.report();
  }

  /** The facts of `phoneNumber`, the number of the flow `flowId`: read once a flow, kept by its id (not kept without). */
  #factsOf(phoneNumber: string, flowId: string | undefined): NumberFacts {
    let facts = flowId === undefined ? undefined : this.#facts.get(flowId);
    if (facts === undefined) {
      facts = numberFactsOf(phoneNumber, this.#digits);
      if (flowId === undefined) return facts;
      if (this.#facts.size >= 4096) this.#facts.clear();
      this.#facts.set(flowId, facts);
    }
    return facts;
  }

  #allows(country: string | undefined): boolean {
    if (country === undefined) return false;
    return this.#settings.countries === undefined || this.#settings.countries.has(country);
  }

  /** Gives back the units of a refused attempt; a failure here only leaves the count a little high (never a refusal). */
  async #giveBack(taken: readonly Count[], call?: StoreCall): Promise<void> {
    await Promise.all(
      taken.map(({ counted, key, points }) => counted.limiter.reward(key, points, { call }).catch(() => undefined)),
    );
  }
}
