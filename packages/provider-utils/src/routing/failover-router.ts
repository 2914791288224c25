import type { PhoneChannel, RouteOutcomeV1 } from '@verikit/provider';

/** What a router is asked when a flow's first code is about to be sent. */
export interface RouteRequest {
  /** The recipient, in E.164. The router keeps only the route it derives (a channel and a number prefix). */
  readonly phoneNumber: string;
  /** The channel of the send. */
  readonly channel: PhoneChannel;
  /** The failover's members able to send it, in the hand-written order. */
  readonly members: readonly string[];
}

/** A router's answer: the members to try, in order, and why. */
export interface RouteChoice {
  /** The route the flow is counted on (`sms:234803`): its outcome is told to the router under it. */
  readonly route: string;
  /** The members to try, first to last; a member left out is not tried (a pinned rule forbids it). */
  readonly order: readonly string[];
  /** Why this order, in a few words for the log (`learned: twilio .91, termii .84`, `pinned: rule 1`). */
  readonly why: string;
  /**
   * When the flow's first code goes, by the router's clock (whole ms since the epoch): kept in the flow's requestId
   * with the route, and told back with its outcomes, so a verification's time from the first send is known on any
   * instance. Absent: not kept.
   */
  readonly at?: number;
}

/**
 * Chooses the order in which a failover provider tries its members for a new flow, and is told how flows went
 * (`withFailover(members, { router })`; `createLearningRouter` is one). Only a flow's first send is routed: a resend
 * and every check go to the member that sent, as without a router.
 */
export interface FailoverRouter {
  /** The order for a new flow's first send. A rejection fails the send unsent (nothing was tried). */
  choose(request: RouteRequest): Promise<RouteChoice>;
  /**
   * Tells the router one outcome of a flow on `route` (with the `at` of its choice, when kept); a rejection is logged,
   * never the caller's error.
   */
  record(route: string, member: string, outcome: RouteOutcomeV1, at?: number): Promise<void>;
}
