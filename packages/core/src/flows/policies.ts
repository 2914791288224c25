/** Limits and timings of the verification flows. Every field has a default; override any of them. */
export interface FlowPolicies {
  /** How long a code (phone, BVN/NIN OTP) or a USSD session stays valid. Default 10 minutes. */
  codeTtlMs: number;
  /** Wrong codes allowed before the flow locks. Default 5. */
  maxAttempts: number;
  /** Wait before the first resend. Default 30 seconds. */
  resendCooldownMs: number;
  /** Each further resend waits this many times longer than the one before. Default 2 (30 s, 60 s, 120 s …). */
  resendCooldownGrowth: number;
  /** Sends (the first one included) allowed in one flow. Default 5. */
  maxSendsPerFlow: number;
  /** Sends allowed to one phone number (or one BVN/NIN) across all flows in a fixed one-hour window opened by the first send. Default 5. */
  maxSendsPerHour: number;
  /** How long the engine waits for a provider call before the flow shows its outcome as unknown. Default 15 seconds. */
  effectTimeoutMs: number;
  /** Digits of the OTP the engine generates for BVN/NIN. Default 6. */
  otpLength: number;
  /** How long a record is kept after its flow can no longer change. Default 24 hours. */
  retentionMs: number;
}

/** The defaults docs/flows.md and docs/service.md describe: code TTL 10 min, 5 attempts, cooldown 30 s growing, 5 sends per number per hour. */
export const defaultPolicies: Readonly<FlowPolicies> = Object.freeze({
  codeTtlMs: 10 * 60_000,
  maxAttempts: 5,
  resendCooldownMs: 30_000,
  resendCooldownGrowth: 2,
  maxSendsPerFlow: 5,
  maxSendsPerHour: 5,
  effectTimeoutMs: 15_000,
  otpLength: 6,
  retentionMs: 24 * 60 * 60_000,
});
