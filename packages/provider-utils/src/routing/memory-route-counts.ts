import type { RouteCountsV1, RouteOutcomeV1, RouteTallyV1 } from '@verikit/provider';

/** The sums of a tally decayed from its `at` to `now` (never grown: a `now` before `at` leaves them). */
export function decayedTally(tally: RouteTallyV1, now: number, halfLifeMs: number): Required<RouteTallyV1> {
  const factor = now > tally.at ? 2 ** (-(now - tally.at) / halfLifeMs) : 1;
  return {
    sent: tally.sent * factor,
    verified: tally.verified * factor,
    delivered: (tally.delivered ?? 0) * factor,
    verifySeconds: (tally.verifySeconds ?? 0) * factor,
    at: Math.max(now, tally.at),
  };
}

/** A tally with one `outcome` added at `now` (its sums decayed to `now` first): what every store writes. */
function addedTally(
  tally: RouteTallyV1 | undefined,
  outcome: RouteOutcomeV1,
  now: number,
  halfLifeMs: number,
  verifySeconds?: number,
): Required<RouteTallyV1> {
  const before = decayedTally(tally ?? { sent: 0, verified: 0, at: now }, now, halfLifeMs);
  const seconds = outcome === 'verified' && Number.isFinite(verifySeconds) ? Math.max(0, verifySeconds!) : 0;
  return {
    sent: before.sent + (outcome === 'sent' ? 1 : 0),
    delivered: before.delivered + (outcome === 'delivered' ? 1 : 0),
    verified: before.verified + (outcome === 'verified' ? 1 : 0),
    verifySeconds: before.verifySeconds + seconds,
    at: before.at,
  };
}

/**
 * Route counts kept in this process: what one instance learns, lost on restart. For several instances,
 * `createRedisRouteCounts` of `@verikit/redis`.
 */
export function createMemoryRouteCounts(): RouteCountsV1 {
  const routes = new Map<string, Map<string, RouteTallyV1>>();
  return {
    async read(route) {
      return Object.fromEntries(routes.get(route) ?? []);
    },
    async add(route, member, outcome, now, halfLifeMs, verifySeconds) {
      const members = routes.get(route) ?? new Map<string, RouteTallyV1>();
      routes.set(route, members);
      members.set(member, addedTally(members.get(member), outcome, now, halfLifeMs, verifySeconds));
    },
    async routes() {
      return [...routes.keys()];
    },
  };
}
