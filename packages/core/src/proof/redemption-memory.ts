/** How long a redemption is remembered: longer than any flow is kept (24 h) plus the longest proof life. */
export const redemptionMemoryMs = 26 * 60 * 60_000;
