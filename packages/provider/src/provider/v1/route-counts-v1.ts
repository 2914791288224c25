/**
 * One provider's counts on one route (a channel and an operator's number prefix): decayed sums, as of `at`. A count
 * loses half its weight every half-life, so the numbers follow drift; read them as "recent flows".
 */
export interface RouteTallyV1 {
  /** Flows whose first code this provider sent on the route (decayed). */
  readonly sent: number;
  /** Of them, flows that ended verified (decayed the same way). */
  readonly verified: number;
  /**
   * Of them, flows whose code a delivery receipt said arrived (decayed the same way); only providers whose receipts
   * reach the flows count any. Absent: none counted (or counts written before it was kept).
   */
  readonly delivered?: number;
  /**
   * The seconds from each verified flow's first send to its verification, summed (decayed the same way): divided by
   * `verified`, the mean time to verify. Absent: none counted.
   */
  readonly verifySeconds?: number;
  /** When the sums were last brought up to date, in the clock of whoever added (ms since the epoch). */
  readonly at: number;
}

/** What a flow on a route told the counts: its first code was sent, a receipt said a code arrived, or it was verified. */
export type RouteOutcomeV1 = 'sent' | 'delivered' | 'verified';

/**
 * Where a learning router keeps its counts, per route and provider: in the process (`createMemoryRouteCounts` of
 * `@verikit/provider-utils`), or shared by every instance (`createRedisRouteCounts` of `@verikit/redis`), so that
 * instances learn from each other's flows. Every method may reject (the store is down): the router then routes by
 * its priors and warns.
 */
export interface RouteCountsV1 {
  /** Each provider's tally on `route`; a provider never counted there is absent. */
  read(route: string): Promise<Readonly<Record<string, RouteTallyV1>>>;
  /**
   * Adds one `outcome` of `member` on `route` at `now`, decaying the sums it had (`halfLifeMs`) since their `at`
   * first; a `verified` outcome adds `verifySeconds` (its flow's seconds from first send, when known) to that sum.
   * Atomic per route and member: two instances adding at once both count.
   */
  add(
    route: string,
    member: string,
    outcome: RouteOutcomeV1,
    now: number,
    halfLifeMs: number,
    verifySeconds?: number,
  ): Promise<void>;
  /** The routes ever counted (for a table of what the router believes). */
  routes(): Promise<readonly string[]>;
}
