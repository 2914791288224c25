/**
 * The store keys of redemptions, in one place: a flow's one redemption is claimed under
 * `redemption`, and `redeemed` remembers it for `issueProof`, which then refuses.
 */
export const proofStoreKeys = {
  /** Claimed once by the redeem that wins. */
  redemption: (flowId: string) => `proof:flow:${flowId}`,
  /** Readable: the flow was redeemed. */
  redeemed: (flowId: string) => `proof:redeemed:${flowId}`,
} as const;

/** How long a redemption is remembered: longer than any flow is kept (24 h) plus the longest proof life. */
export const redemptionMemoryMs = 26 * 60 * 60_000;
