import { createDojahProvider, type DojahProviderSettings } from '@verikit/dojah';
import type { ProviderV1 } from '@verikit/provider';
import { withFailover, type FailoverOptions } from '@verikit/provider-utils';
import { createSmileIdProvider, type SmileIdProviderSettings } from '@verikit/smile-id';

/** What {@link createKycProvider} composes. */
export interface KycProviderOptions {
  /** Smile ID's settings (default: its `SMILE_ID_*` variables). */
  readonly smileId?: SmileIdProviderSettings;
  /** Dojah's settings (default: its `DOJAH_*` variables). */
  readonly dojah?: DojahProviderSettings;
  /** The provider that sends the identity OTP (the gateway, Termii…): neither identity vendor does. */
  readonly otp: ProviderV1;
  /** `withFailover`'s options. */
  readonly failover?: FailoverOptions;
}

/**
 * A KYC ladder on two identity vendors (docs/providers/dojah.md, "Smile ID first, Dojah second"): each step goes to
 * Smile ID, and to Dojah only when Smile ID provably did not take it (a refused connection, a 500, 501 or 503); the
 * OTP goes to `otp`.
 */
export function createKycProvider(options: KycProviderOptions): ProviderV1 {
  return withFailover(
    [createSmileIdProvider(options.smileId), createDojahProvider(options.dojah), options.otp],
    options.failover,
  );
}
