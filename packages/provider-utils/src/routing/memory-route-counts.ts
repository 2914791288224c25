import type { RouteCountsV1, RouteOutcomeV1, RouteTallyV1 } from '@verikit/provider';

/** The sums of a tally decayed from its `at` to `now` (never grown: a `now` before `at` leaves them). */
export function decayedTally(tally: RouteTallyV1, now: number, halfLifeMs: number): RouteTallyV1 {
  const factor = now > tally.at ? 2 ** (-(now - tally.at) / halfLifeMs) : 1;
  return { sent: tally.sent * factor, verified: tally.verified * factor, at: Math.max(now, tally.at) };
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
    async add(route, member, outcome: RouteOutcomeV1, now, halfLifeMs) {
      const members = routes.get(route) ?? new Map<string, RouteTallyV1>();
      routes.set(route, members);
      const before = decayedTally(members.get(member) ?? { sent: 0, verified: 0, at: now }, now, halfLifeMs);
      members.set(member, {
        sent: before.sent + (outcome === 'sent' ? 1 : 0),
        verified: before.verified + (outcome === 'verified' ? 1 : 0),
        at: before.at,
      });
    },
    async routes() {
      return [...routes.keys()];
    },
  };
}
