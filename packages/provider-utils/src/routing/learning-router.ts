import {
  InvalidInputError,
  type PhoneChannel,
  type RouteCountsV1,
  type RouteOutcomeV1,
  type RouteTallyV1,
} from '@verikit/provider';
import type { FailoverRouter, RouteChoice, RouteRequest } from './failover-router.js';
import { createMemoryRouteCounts, decayedTally } from './memory-route-counts.js';
import { applyPins, checkPins, type RoutePin } from './route-pins.js';
import { betaDraw, seededRandom } from './seeded-random.js';

/**
 * What a provider is believed to do before any flow was counted: a verified share of `rate`, worth `weight` flows of
 * evidence. The hand-written order starts ahead: the member at position `i` starts at `rate − i × lead`. Once the
 * route has counts, `rate` gives way to what the route's members verify together (pooled with `rate` worth `weight`
 * flows), and `lead` shrinks by `weight / (weight + the route's counted flows)` (decision 1700).
 */
export interface RoutePrior {
  /** The verified share believed of the first member. Default 0.7. */
  readonly rate?: number;
  /** How many flows the belief is worth: more, slower to move. Default 20. */
  readonly weight?: number;
  /** How much less each later member of the hand-written order is believed to verify. Default 0.05. */
  readonly lead?: number;
}

/** Options of {@link createLearningRouter}. */
export interface LearningRouterOptions {
  /** Where the counts live. Default: this process (`createMemoryRouteCounts`); shared: `createRedisRouteCounts`. */
  readonly counts?: RouteCountsV1;
  /** Seeds the sampling, so a run can be replayed. Default: a random seed. */
  readonly seed?: number;
  /** The clock counts decay by. Default `Date`. */
  readonly clock?: {
    /** Now, in ms since the epoch. */
    now(): number;
  };
  /** A count loses half its weight after this long, so the router follows drift. Default 24 hours. */
  readonly halfLifeMs?: number;
  /**
   * A route's counts are read from `counts` the first time an instance routes on it, then again in the background
   * once the last read is this many ms old (by `clock`), the last read being used meanwhile: a start waits for the
   * shared store only on its route's first flow in the process, and an instance sees the others' flows about this
   * late. `0`: read on every start, and wait for it. Default 1000.
   */
  readonly readEveryMs?: number;
  /** The beliefs before any count (see {@link RoutePrior}). */
  readonly prior?: RoutePrior;
  /**
   * What the router maximises: `verified` (default), the share of flows verified; or verified flows per unit of money,
   * given `price` (the price of one code by a member and channel, on the app's rate card).
   */
  readonly objective?:
    | 'verified'
    | {
        /**
         * The price of one code sent by `member` on `channel`, on the app's rate card (any currency). 0: free, tried
         * before every priced member; not a number of 0 or more (undefined: not on the card): after every priced one.
         */
        readonly price: (member: string, channel: PhoneChannel) => number;
      };
  /**
   * The operator part of a route, from the recipient's E.164 number. Default: its first 6 digits (`234803`, which
   * names the operator in Nigeria before any porting). Return a name of at most 40 letters, digits, `+`, `.`, `_`, `-`.
   */
  readonly operatorOf?: (phoneNumber: string) => string;
  /**
   * Operators by name with their E.164 prefixes (`{ MTN: ['+234803', '+234806'], Glo: ['+234805'] }`): a number
   * under one (the longest that matches) is routed as that operator, so its prefixes learn together. A number under
   * none is routed by `operatorOf`. Names as `operatorOf` returns them.
   */
  readonly operators?: Readonly<Record<string, readonly string[]>>;
  /** Rules that always win over what was learned (see {@link RoutePin}), applied in order. */
  readonly pins?: readonly RoutePin[];
  /**
   * Reports each outcome counted as OpenTelemetry metrics per route and member: an app passes
   * `metrics.getMeter('verikit')` of `@opentelemetry/api` (see {@link RouteMeter}). Default: none.
   */
  readonly meter?: RouteMeter;
}

/**
 * The part of an OpenTelemetry `Meter` the router uses (`metrics.getMeter('verikit')` is one): a counter
 * `verikit.routing.outcomes` (attributes `verikit.route`, `verikit.member`, `verikit.outcome`: sent, delivered,
 * verified) and a histogram `verikit.routing.time_to_verify` (seconds from a flow's first send to its verification;
 * `verikit.route`, `verikit.member`), recorded by the instance that counts the outcome.
 */
export interface RouteMeter {
  /** Makes a counter. */
  createCounter(
    name: string,
    options?: { description?: string; unit?: string },
  ): {
    /** Adds `value` to the count of the series `attributes` name. */
    add(value: number, attributes?: Record<string, string>): void;
  };
  /** Makes a histogram. */
  createHistogram(
    name: string,
    options?: { description?: string; unit?: string; advice?: { explicitBucketBoundaries?: number[] } },
  ): {
    /** Records one `value` in the series `attributes` name. */
    record(value: number, attributes?: Record<string, string>): void;
  };
}

/** One line of what the router believes: a member on a route. */
export interface RouteBelief {
  /** The route (`sms:234803`). */
  readonly route: string;
  /** The member. */
  readonly member: string;
  /** Flows sent on the route by it, decayed to now. */
  readonly sent: number;
  /** Of them, flows whose first code a delivery receipt said arrived, decayed to now (0 without receipts). */
  readonly delivered: number;
  /** Of them verified, decayed to now. */
  readonly verified: number;
  /** The mean seconds from a verified flow's first send to its verification; undefined: none timed. */
  readonly secondsToVerify: number | undefined;
  /** The verified share believed: the mean of its posterior, priors included (its hand-written position unknown here: the first's prior). */
  readonly believed: number;
}

/** A {@link FailoverRouter} that learns, with the table of what it believes. */
export interface LearningRouter extends FailoverRouter {
  /** What the router believes now, route by route, best first within a route. */
  table(): Promise<RouteBelief[]>;
}

const defaultHalfLifeMs = 86_400_000;
/** The seconds to verify assumed of a member before any of its flows verified. */
const defaultSecondsToVerify = 60;
/** How many of a member's latest flows make its recent share: each new flow keeps `1 − 1/recentFlows` of the rest. */
const recentFlows = 60;
const routePart = /^[A-Za-z0-9+._-]{1,40}$/;

/**
 * A member's mean seconds to verify from its decayed counts (at least 1), or the default before any flow of it
 * verified. Counts written before times were kept read as verified at once.
 */
function secondsToVerify(decayed: Required<RouteTallyV1>): number {
  if (decayed.verified <= 0) return defaultSecondsToVerify;
  return Math.max(1, decayed.verifySeconds / decayed.verified);
}

/**
 * What an instance saw of a member on a route at its last read: the decayed sent and verified then, its flows
 * believed under way, and its recent flows (sent, verified), fading by the member's flows sent.
 */
interface MemberSeen {
  readonly seen: number;
  readonly seenVerified: number;
  readonly flows: number;
  readonly recent: readonly [number, number];
  /** Its flows (sent, verified) since the last change its recent flows showed; undefined: none seen. */
  readonly since: readonly [number, number] | undefined;
}

/** The default operator part of a route: the number's first 6 digits. */
const firstSixDigits = (phoneNumber: string) => phoneNumber.slice(1, 7);

/** The operators' prefixes, longest first, each with its operator's name; checked. */
function prefixTable(operators: unknown): Array<[string, string]> {
  if (operators === undefined) return [];
  if (typeof operators !== 'object' || operators === null)
    throw new InvalidInputError([{ field: 'operators', message: 'must map operator names to lists of prefixes' }]);
  const table: Array<[string, string]> = [];
  for (const [name, prefixes] of Object.entries(operators)) {
    if (!routePart.test(name))
      throw new InvalidInputError([
        { field: `operators.${name.slice(0, 40)}`, message: 'must be named by 1 to 40 letters, digits, +, ., _ or -' },
      ]);
    if (
      !Array.isArray(prefixes) ||
      prefixes.some((prefix) => typeof prefix !== 'string' || !/^\+[1-9]\d{0,11}$/.test(prefix))
    )
      throw new InvalidInputError([
        { field: `operators.${name}`, message: 'must be a list of + and 1 to 12 digits, such as +234803' },
      ]);
    for (const prefix of prefixes) table.push([prefix, name]);
  }
  return table.sort((a, b) => b[0].length - a[0].length);
}

function checkedNumber(value: unknown, field: string, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max)
    throw new InvalidInputError([{ field, message: `must be a number from ${min} to ${max}` }]);
  return value;
}

/**
 * A router that learns, per route (a channel and an operator's number prefix), which member gets people verified,
 * from the flows' own outcomes, and sends each new flow by Thompson sampling: for each member it draws a verified
 * share from its Beta posterior (prior + decayed counts) and tries the members best draw first. A member that does
 * well gets most flows; one rarely tried keeps a wide posterior and is tried now and then, so a change is noticed.
 * Pinned rules win over it. docs/routing.md says what it optimises and what it cannot know.
 *
 * @example
 * const router = createLearningRouter({ counts: createRedisRouteCounts({ store }), pins: [{ prefix: '+234805', use: ['termii'] }] });
 * const provider = withFailover([termii, twilio, gateway], { router });
 */
export function createLearningRouter(options: LearningRouterOptions = {}): LearningRouter {
  if (typeof options !== 'object' || options === null)
    throw new InvalidInputError([{ field: 'options', message: 'must be an object' }]);
  const counts = options.counts ?? createMemoryRouteCounts();
  if (typeof counts?.read !== 'function' || typeof counts.add !== 'function' || typeof counts.routes !== 'function')
    throw new InvalidInputError([
      { field: 'counts', message: 'must be route counts such as createRedisRouteCounts()' },
    ]);
  const seed = checkedNumber(options.seed, 'seed', 0, 4_294_967_295, Math.floor(Math.random() * 4_294_967_296));
  const random = seededRandom(seed);
  const clock = options.clock ?? Date;
  if (typeof clock?.now !== 'function')
    throw new InvalidInputError([{ field: 'clock', message: 'must be an object with a now() function' }]);
  const halfLifeMs = checkedNumber(options.halfLifeMs, 'halfLifeMs', 1000, 365 * 86_400_000, defaultHalfLifeMs);
  const readEveryMs = checkedNumber(options.readEveryMs, 'readEveryMs', 0, 3_600_000, 1000);
  const lastRead = new Map<
    string,
    { at: number; tallies: Readonly<Record<string, RouteTallyV1>>; refreshing: boolean }
  >();
  /**
   * What each read of a route shows since the read before, per member: its flows still under way, an exponentially
   * fading sum of its sends whose time constant is its mean time to verify (such a flow counts as sent but cannot
   * have verified yet, so its counted failures are lowered by the share of them that will verify); and its recent
   * flows, sent and verified, fading by its own flows sent (the last {@link recentFlows} or so), to see a change
   * however long its history. Kept in this instance, from the shared counts, so every instance's flows are in it
   * (decision 1820).
   */
  const underWay = new Map<string, { at: number; members: Map<string, MemberSeen> }>();
  const noteSends = (route: string, tallies: Readonly<Record<string, RouteTallyV1>>, now: number) => {
    const last = underWay.get(route);
    const members = new Map<string, MemberSeen>();
    for (const [member, tally] of Object.entries(tallies)) {
      const decayed = decayedTally(tally, now, halfLifeMs);
      const before = last?.members.get(member);
      if (last === undefined || before === undefined || now < last.at) {
        // First read of the route here: the sends before it are not known, so none is counted under way or recent.
        members.set(member, {
          seen: decayed.sent,
          seenVerified: decayed.verified,
          flows: 0,
          recent: [0, 0],
          since: undefined,
        });
        continue;
      }
      const elapsed = (now - last.at) / 1000;
      const tau = secondsToVerify(decayed);
      const kept = 2 ** (-(now - last.at) / halfLifeMs);
      const fresh = Math.max(0, decayed.sent - before.seen * kept);
      const freshVerified = Math.max(0, decayed.verified - before.seenVerified * kept);
      // The fresh sends were spread over the elapsed time: counted as sent half-way through it.
      const flows = before.flows * Math.exp(-elapsed / tau) + fresh * Math.exp(-elapsed / (2 * tau));
      // Flows no longer under way feed the recent flows and the flows since a change, with the verifications seen, so
      // both are settled flows even while the member's traffic grows. They fade by flows, not by time: each settled
      // flow keeps (1 - 1/recentFlows) of the recent ones.
      const settled = Math.max(0, before.flows + fresh - flows);
      const fade = (1 - 1 / recentFlows) ** settled;
      const recent: [number, number] = [before.recent[0] * fade + settled, before.recent[1] * fade + freshVerified];
      let since: [number, number] | undefined =
        before.since === undefined ? undefined : [before.since[0] + settled, before.since[1] + freshVerified];
      // What the member is believed to do: its flows since its last change, or its long run (its flows under way not
      // counted as failed) when none was seen. When its recent settled flows are credibly not that, it changed, and
      // only its flows from now on count.
      const sent = Math.max(0, decayed.sent);
      const verified = Math.max(0, Math.min(decayed.verified, sent));
      const [baseVerified, baseFailed] =
        since === undefined
          ? [verified, Math.max(0, sent - verified - flows * ((verified + rate * weight) / (sent + weight)))]
          : [Math.min(since[1], since[0]), Math.max(0, since[0] - since[1])];
      const believed = baseVerified / Math.max(1, baseVerified + baseFailed);
      const n = recent[0];
      if (
        n >= recentFlows / 3 &&
        Math.abs(Math.min(recent[1], n) / n - believed) > 3 * Math.sqrt(Math.max(believed * (1 - believed), 0.01) / n)
      )
        since = [n, Math.min(recent[1], n)];
      members.set(member, { seen: decayed.sent, seenVerified: decayed.verified, flows, recent, since });
    }
    underWay.set(route, { at: now, members });
  };
  /** The flows of `member` on `route` believed still under way at `now`. */
  const flowsUnderWay = (route: string, member: string, tally: RouteTallyV1 | undefined, now: number) => {
    const last = underWay.get(route);
    const flows = last?.members.get(member)?.flows ?? 0;
    if (last === undefined || tally === undefined || flows === 0 || now <= last.at) return flows;
    return flows * Math.exp(-(now - last.at) / 1000 / secondsToVerify(decayedTally(tally, now, halfLifeMs)));
  };
  const readNow = async (route: string, now: number) => {
    const tallies = await counts.read(route);
    noteSends(route, tallies, now);
    if (readEveryMs > 0) lastRead.set(route, { at: now, tallies, refreshing: false });
    return tallies;
  };
  /**
   * The route's counts: read now the first time (and on every start with `readEveryMs` 0); after that the last read,
   * refreshed in the background once it is `readEveryMs` old, so a start never waits for it. Undefined: unreadable.
   */
  const tallyOf = async (route: string, now: number) => {
    const last = lastRead.get(route);
    if (last === undefined) return readNow(route, now).catch(() => undefined);
    if (!last.refreshing && (now - last.at >= readEveryMs || now < last.at)) {
      last.refreshing = true;
      readNow(route, now).catch(() => {
        last.refreshing = false;
      });
    }
    return last.tallies;
  };
  const prior = options.prior ?? {};
  const rate = checkedNumber(prior.rate, 'prior.rate', 0.01, 0.99, 0.7);
  const weight = checkedNumber(prior.weight, 'prior.weight', 1, 10_000, 20);
  const lead = checkedNumber(prior.lead, 'prior.lead', 0, 0.5, 0.05);
  const objective = options.objective ?? 'verified';
  if (objective !== 'verified' && typeof (objective as { price?: unknown })?.price !== 'function')
    throw new InvalidInputError([{ field: 'objective', message: "must be 'verified' or { price(member, channel) }" }]);
  const fallback = options.operatorOf ?? firstSixDigits;
  if (typeof fallback !== 'function')
    throw new InvalidInputError([{ field: 'operatorOf', message: 'must be a function' }]);
  const byPrefix = prefixTable(options.operators);
  const operatorOf = (phoneNumber: string) => {
    for (const [prefix, name] of byPrefix) if (phoneNumber.startsWith(prefix)) return name;
    return fallback(phoneNumber);
  };
  const pins = checkPins(options.pins);
  const metrics = routeMetrics(options.meter);

  /**
   * What the route's members verify together, and how much evidence that is: the decayed counts of all its members,
   * pooled with the prior `rate` worth `weight` flows. An untried member is believed to verify what the route's
   * members verify (not a fixed `rate` far from it), and the hand-written order's `lead` fades as the route's flows
   * are counted.
   */
  const routeBelief = (route: string, tallies: Readonly<Record<string, RouteTallyV1>>, now: number) => {
    let sent = 0;
    let verified = 0;
    for (const [member, tally] of Object.entries(tallies)) {
      const settled = settledOf(route, member, tally, now, undefined);
      sent += settled.verified + settled.failed;
      verified += settled.verified;
    }
    return { mean: (rate * weight + verified) / (weight + sent), lead: (lead * weight) / (weight + sent) };
  };
  /**
   * A member's decayed verified and failed flows on a route, its flows under way not counted as failed (the share of
   * them believed to verify: `mean`, or its own share so far); after a change its recent flows showed at a read, its
   * flows since (decision 1820). Reads nothing and changes nothing.
   */
  const settledOf = (
    route: string,
    member: string,
    tally: RouteTallyV1 | undefined,
    now: number,
    mean: number | undefined,
  ) => {
    if (tally === undefined) return { verified: 0, failed: 0 };
    const decayed = decayedTally(tally, now, halfLifeMs);
    const sent = Math.max(0, decayed.sent);
    const verified = Math.max(0, Math.min(decayed.verified, sent));
    const share = mean ?? (verified + rate * weight) / (sent + weight);
    const under = share * flowsUnderWay(route, member, tally, now);
    const failed = Math.max(0, sent - verified - under);
    const since = underWay.get(route)?.members.get(member)?.since;
    if (since === undefined) return { verified, failed };
    // The member changed (its recent flows said so at a read): only its flows since count.
    const sinceVerified = Math.min(since[1], since[0]);
    return { verified: sinceVerified, failed: since[0] - sinceVerified };
  };
  /** The posterior's two parameters of the member at `position` of the hand-written order on a route so believed. */
  const posterior = (
    route: string,
    member: string,
    tally: RouteTallyV1 | undefined,
    position: number,
    now: number,
    believed: { mean: number; lead: number },
  ): [number, number] => {
    const mean = Math.min(0.99, Math.max(0.01, believed.mean - position * believed.lead));
    const decayed = tally === undefined ? undefined : decayedTally(tally, now, halfLifeMs);
    const sent = Math.max(0, decayed?.sent ?? 0);
    const verified = Math.max(0, Math.min(decayed?.verified ?? 0, sent));
    const { verified: settledVerified, failed } = settledOf(
      route,
      member,
      tally,
      now,
      (mean * weight + verified) / (weight + sent),
    );
    return [mean * weight + settledVerified, (1 - mean) * weight + failed];
  };
  /**
   * What a member is worth for a flow with a drawn verified share: the share; or, by price, the share per unit of
   * money. A price of 0 is free (before every priced member, by share); one that is not a number of 0 or more (a
   * member missing from the rate card) is unknown, after every priced member (by share): an unpriced member is never
   * taken for a free one (decision 1950).
   */
  const value = (member: string, channel: PhoneChannel, share: number) => {
    if (objective === 'verified') return share;
    const price: unknown = objective.price(member, channel);
    if (typeof price !== 'number' || !Number.isFinite(price) || price < 0) return share / Number.MAX_SAFE_INTEGER;
    return price > 0 ? share / price : share * Number.MAX_SAFE_INTEGER;
  };
  /** The objective as `why` names it: nothing for the default. */
  const per = objective === 'verified' ? '' : ', verified per price';
  const score =
    objective === 'verified' ? (value: number) => value.toFixed(3) : (value: number) => value.toPrecision(3);

  async function choose(request: RouteRequest): Promise<RouteChoice> {
    const operator = operatorOf(request.phoneNumber);
    if (typeof operator !== 'string' || !routePart.test(operator))
      throw new InvalidInputError([
        { field: 'operatorOf', message: 'must return 1 to 40 letters, digits, +, ., _ or -' },
      ]);
    const route = `${request.channel}:${operator}`;
    const now = clock.now();
    const at = Math.round(now);
    const pinned = applyPins(pins, request.phoneNumber, request.channel, request.members);
    if (pinned.fixedBy !== undefined)
      return { route, order: pinned.members, why: `pinned: rule ${pinned.fixedBy}`, at };
    const members = pinned.members;
    if (members.length <= 1)
      return { route, order: members, why: members.length === 0 ? 'pinned: none left' : 'only one', at };
    const read = await tallyOf(route, now);
    const unreadable = read === undefined;
    const tallies = read ?? {};
    const believed = routeBelief(route, tallies, now);
    const drawn = members.map((member) => {
      const [alpha, beta] = posterior(route, member, tallies[member], request.members.indexOf(member), now, believed);
      return { member, score: value(member, request.channel, betaDraw(random, alpha, beta)) };
    });
    // Stable: a tie keeps the hand-written order.
    drawn.sort((a, b) => b.score - a.score);
    const why = `${unreadable ? 'priors (counts unreadable)' : 'sampled'}${per}: ${drawn
      .map((each) => `${each.member} ${score(each.score)}`)
      .join(', ')}`;
    return { route, order: drawn.map((each) => each.member), why, at };
  }

  return {
    choose,
    record(route, member, outcome, at) {
      const now = clock.now();
      const seconds = outcome === 'verified' && at !== undefined && now >= at ? (now - at) / 1000 : undefined;
      metrics?.(route, member, outcome, seconds);
      return counts.add(route, member, outcome, now, halfLifeMs, seconds);
    },
    async table() {
      const now = clock.now();
      const rows: RouteBelief[] = [];
      for (const route of [...(await counts.routes())].sort()) {
        const tallies = await counts.read(route);
        const believed = routeBelief(route, tallies, now);
        const beliefs = Object.entries(tallies).map(([member, tally]) => {
          const decayed = decayedTally(tally, now, halfLifeMs);
          const [alpha, beta] = posterior(route, member, tally, 0, now, believed);
          return {
            route,
            member,
            sent: decayed.sent,
            delivered: decayed.delivered,
            verified: decayed.verified,
            secondsToVerify: decayed.verifySeconds > 0 ? decayed.verifySeconds / decayed.verified : undefined,
            believed: alpha / (alpha + beta),
          };
        });
        rows.push(...beliefs.sort((a, b) => b.believed - a.believed));
      }
      return rows;
    },
  };
}

/** The router's OpenTelemetry instruments ({@link RouteMeter}), as one function of an outcome; undefined: none. */
function routeMetrics(meter: RouteMeter | undefined) {
  if (meter === undefined) return undefined;
  if (typeof meter?.createCounter !== 'function' || typeof meter.createHistogram !== 'function')
    throw new InvalidInputError([
      { field: 'meter', message: "must be an OpenTelemetry Meter: metrics.getMeter('verikit')" },
    ]);
  const outcomes = meter.createCounter('verikit.routing.outcomes', {
    description: 'Outcomes of routed flows: first codes sent, first codes a receipt said arrived, flows verified',
  });
  const toVerify = meter.createHistogram('verikit.routing.time_to_verify', {
    description: "Seconds from a routed flow's first send to its verification",
    unit: 's',
    advice: { explicitBucketBoundaries: [5, 10, 20, 30, 60, 90, 120, 180, 300, 600] },
  });
  return (route: string, member: string, outcome: RouteOutcomeV1, seconds: number | undefined) => {
    outcomes.add(1, { 'verikit.route': route, 'verikit.member': member, 'verikit.outcome': outcome });
    if (seconds !== undefined) toVerify.record(seconds, { 'verikit.route': route, 'verikit.member': member });
  };
}
