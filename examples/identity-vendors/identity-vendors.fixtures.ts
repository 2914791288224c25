import type { FakePerson } from '@verikit/provider-utils/fake';
import { startDojahFake, type DojahFake } from '@verikit/dojah/fake';
import { startSmileIdFake, type SmileIdFake } from '@verikit/smile-id/fake';
import { createTestProviderV1, type TestProviderV1 } from '@verikit/testing';
import type { ProviderV1 } from '@verikit/provider';
import { createKycProvider } from './kyc-provider.js';

/** Both vendors' fakes, and the KYC provider on them (Smile ID first, Dojah second, the double for the OTP). */
export interface Vendors {
  readonly smileId: SmileIdFake;
  readonly dojah: DojahFake;
  /** A fresh composition: `timeout` per vendor call (ms), no breaker, no connection retry. */
  kyc(timeout?: number): { readonly provider: ProviderV1; readonly otp: TestProviderV1 };
  /** Forgets both fakes' logs and outages. */
  reset(): void;
  /** Stops both fakes. */
  close(): Promise<void>;
}

/** Starts both fakes on one register (`people`, else each fake's own). */
export async function startVendors(people?: readonly FakePerson[]): Promise<Vendors> {
  const [smileId, dojah] = await Promise.all([
    startSmileIdFake(people === undefined ? {} : { people }),
    startDojahFake(people === undefined ? {} : { people }),
  ]);
  return {
    smileId,
    dojah,
    kyc(timeout = 10_000) {
      const otp = createTestProviderV1({ name: 'otp', identitySteps: [] });
      const transport = { timeout, connectionRetries: 0 };
      const provider = createKycProvider({
        smileId: {
          partnerId: smileId.partnerId,
          apiKey: smileId.apiKey,
          baseUrl: smileId.baseUrl,
          callbackUrl: 'http://127.0.0.1/callback',
          pollMs: 0,
          ...transport,
        },
        dojah: { appId: dojah.appId, secretKey: dojah.secretKey, baseUrl: dojah.baseUrl, ...transport },
        otp,
        failover: { breaker: false },
      });
      return { provider, otp };
    },
    reset() {
      smileId.reset();
      dojah.reset();
    },
    close: async () => {
      await Promise.all([smileId.close(), dojah.close()]);
    },
  };
}
