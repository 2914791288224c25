import { RateLimitedError, silentLogger } from '@verikit/provider';
import { checkGuardOptions, resolveGuardOptions, SecretBox, SendGuard } from '@verikit/core/internal';
import type { CostReport, SendGuardOptions, TripwireTrip } from '@verikit/core';
import { EventQueue } from '../event-queue.js';
import { below, chance, drawSeconds, randomStream } from '../random.js';
import type { TrafficScenario } from './traffic-scenario.js';
import { virtualGuardStore } from './virtual-guard-store.js';

/** What a replay printed: what the attack got through, whom the configuration refused, and what it all cost. */
export interface ReplayResult {
  /** The traffic's name. */
  readonly scenario: string;
  /** The seed it ran with. */
  readonly seed: number;
  /** Starts replayed: people's and bots'. */
  readonly starts: number;
  /** People's starts, those the guard refused, and their share. */
  readonly people: {
    /** People's starts. */
    readonly starts: number;
    /** Of which refused by the guard. */
    readonly refused: number;
    /** `refused / starts`. */
    readonly refusedShare: number;
  };
  /** The bots. */
  readonly attackers: {
    /** Bot starts. */
    readonly starts: number;
    /** Code messages sent to the bots' numbers. */
    readonly sends: number;
    /** Per attacked prefix: sends before its first trip (all of them when it never tripped), and in all. */
    readonly byPrefix: ReadonlyArray<{
      /** The attacked range. */
      readonly prefix: string;
      /** Sends to it before its first trip. */
      readonly beforeTrip: number;
      /** Sends to it in all. */
      readonly sends: number;
    }>;
  };
  /** Trips of the tripwire, per dimension. */
  readonly trips: {
    /** Trips of a prefix (a range trips again when its trip ends and its figures still say nobody verifies). */
    readonly prefix: number;
    /** Trips of a whole country. */
    readonly country: number;
  };
  /** What the sends cost, people's and bots'. */
  readonly cost: {
    /** People's sends. */
    readonly people: number;
    /** Bots' sends. */
    readonly attackers: number;
    /** The price's currency. */
    readonly currency: string;
  };
  /** The guard's own cost ledger: equal to people's and bots' cost together. */
  readonly ledger: CostReport;
}

const secret = 'verikit-replay-secret-0123456789abcdefgh';
const epoch = Date.UTC(2026, 0, 5, 0, 0, 0);
const hourMs = 3_600_000;

/**
 * Replays synthetic traffic against the engine's send guard (its counts, budget, tripwire and cost ledger, the code
 * `createVerikit` runs before every send) with the scenario's guard configuration, on the in-memory store and a
 * virtual clock. A flow is reduced to what the guard sees: a start's send, the resends, and a verification. Flows,
 * providers and the per-number limit are not run (that is `verikit simulate`). Deterministic for a scenario and seed.
 */
export async function runReplay(scenario: TrafficScenario, options: { seed?: number } = {}): Promise<ReplayResult> {
  const seed = options.seed ?? scenario.seed;
  let now = epoch;
  const clock = { now: () => now };
  const priceMicros = Math.round(scenario.price.sms * 1e6);
  const trips = { prefix: 0, country: 0 };
  const tripped = new Set<string>();
  const given = {
    ...(scenario.guard as SendGuardOptions),
    prices: { currency: scenario.price.currency, prices: [{ channel: 'sms', price: scenario.price.sms }] },
  } as SendGuardOptions;
  if (given.tripwire !== undefined)
    given.tripwire = {
      ...given.tripwire,
      onTrip: (trip: TripwireTrip) => {
        trips[trip.dimension] += 1;
        if (trip.dimension === 'prefix') tripped.add(trip.key);
      },
    };
  checkGuardOptions(given);
  const secrets = new SecretBox(secret);
  const guard = new SendGuard(resolveGuardOptions(given)!, {
    store: virtualGuardStore(clock),
    secrets,
    logger: silentLogger,
  });
  const digits = given.tripwire?.digits ?? 7;
  const attacked = (scenario.attackers?.prefixes ?? []).map((prefix) => {
    const national = prefix.slice(4);
    return {
      prefix,
      // The key the tripwire names a prefix by (a keyed hash), to tell when this one tripped.
      key: secrets.hash('guard:tripwire', `p:${prefix.slice(1, 4)}:${national.slice(0, digits)}`),
      beforeTrip: 0,
      sends: 0,
    };
  });

  const random = randomStream(seed, 7);
  const queue = new EventQueue();
  const totals = { peopleStarts: 0, peopleRefused: 0, botStarts: 0, botSends: 0, peopleSends: 0 };
  let clients = 0;
  const fill = (prefix: string, length: number) => {
    let number = prefix;
    while (number.length < length + 1) number += String(below(random, 10));
    return number;
  };

  /** One send the flow asks for: admitted by the guard, then counted as gone out. A flow's id is its client's. */
  const send = async (phoneNumber: string, client: string): Promise<boolean> => {
    try {
      await guard.check({ phoneNumber, client, channel: 'sms', flowId: client }, now);
    } catch (error) {
      if (RateLimitedError.isInstance(error)) return false;
      throw error;
    }
    guard.sent({ phoneNumber, flowId: client, provider: 'replay', channel: 'sms' }, now);
    return true;
  };

  const person = async () => {
    const { people } = scenario;
    const phoneNumber = fill(people.prefixes[below(random, people.prefixes.length)]!, people.digits);
    clients += 1;
    const client = `c${clients}`;
    totals.peopleStarts += 1;
    if (!(await send(phoneNumber, client))) {
      totals.peopleRefused += 1;
      return;
    }
    totals.peopleSends += 1;
    if (chance(random, people.verify)) {
      queue.push(now + drawSeconds(random, people.verifyAfter) * 1000, () => guard.verified(phoneNumber, client, now));
    } else if (chance(random, people.resend)) {
      queue.push(now + drawSeconds(random, people.resendAfter) * 1000, async () => {
        if (await send(phoneNumber, client)) totals.peopleSends += 1;
      });
    }
  };

  const bot = async () => {
    const attackers = scenario.attackers!;
    const target = attacked[below(random, attacked.length)]!;
    const phoneNumber = fill(target.prefix, attackers.digits);
    clients += 1;
    const client = `c${clients}`;
    totals.botStarts += 1;
    const once = async (left: number) => {
      if (!(await send(phoneNumber, client))) return;
      totals.botSends += 1;
      target.sends += 1;
      if (!tripped.has(target.key)) target.beforeTrip += 1;
      if (left > 0) queue.push(now + attackers.resendEvery * 1000, () => once(left - 1));
    };
    await once(attackers.resends);
  };

  /** Runs every queued event due by `until`. */
  const drain = async (until: number) => {
    for (let next = queue.peekAt(); next !== undefined && next <= until; next = queue.peekAt()) {
      const event = queue.pop()!;
      now = Math.max(now, event.at);
      await event.run();
    }
  };

  const weights = scenario.hourly.reduce((sum, weight) => sum + weight, 0);
  const hours = scenario.days * 24;
  let placed = 0;
  for (let hour = 0; hour < hours; hour += 1) {
    // Starts of this hour: its share of the whole, the rounding carried so that the total is exact.
    const upTo = Math.round(
      (scenario.starts * (Math.floor(hour / 24) * weights + cumulative(scenario.hourly, hour % 24))) /
        (weights * scenario.days),
    );
    const count = upTo - placed;
    placed = upTo;
    const times = new Float64Array(count);
    for (let index = 0; index < count; index += 1) times[index] = epoch + hour * hourMs + random.next() * hourMs;
    times.sort();
    for (const at of times) {
      await drain(at);
      now = at;
      if (scenario.attackers !== undefined && chance(random, scenario.attackers.share)) await bot();
      else await person();
    }
  }
  await drain(Number.POSITIVE_INFINITY);

  const ledger = guard.costs()!;
  return {
    scenario: scenario.name,
    seed,
    starts: scenario.starts,
    people: {
      starts: totals.peopleStarts,
      refused: totals.peopleRefused,
      refusedShare: totals.peopleStarts === 0 ? 0 : totals.peopleRefused / totals.peopleStarts,
    },
    attackers: {
      starts: totals.botStarts,
      sends: totals.botSends,
      byPrefix: attacked.map(({ prefix, beforeTrip, sends }) => ({ prefix, beforeTrip, sends })),
    },
    trips,
    cost: {
      people: (totals.peopleSends * priceMicros) / 1e6,
      attackers: (totals.botSends * priceMicros) / 1e6,
      currency: scenario.price.currency,
    },
    ledger,
  };
}

/** The weights of the hours before `hour`, plus its own. */
function cumulative(weights: readonly number[], hour: number): number {
  let sum = 0;
  for (let index = 0; index <= hour; index += 1) sum += weights[index]!;
  return sum;
}
