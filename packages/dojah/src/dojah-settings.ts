import type { HttpProviderSettings } from '@verikit/provider-utils';

/** The Dojah operations, named as the provider spec names them. */
export type DojahOperation = 'identitySteps.match' | 'identitySteps.face';

/**
 * Settings of {@link createDojahProvider}. Every one may be left out; the credentials and address then come from the
 * environment variable named beside it, read at each call and never logged.
 */
export interface DojahProviderSettings extends HttpProviderSettings<DojahOperation> {
  /** Your Dojah app's id, sent in the `AppId` header. Default: `DOJAH_APP_ID`. */
  readonly appId?: string;
  /** Your app's secret key, sent as it is in the `Authorization` header (no `Bearer`). Default: `DOJAH_SECRET_KEY`. */
  readonly secretKey?: string;
  /**
   * The API's address. Default: `DOJAH_BASE_URL`, else `https://api.dojah.io` (the sandbox is
   * `https://sandbox.dojah.io`).
   */
  readonly baseUrl?: string;
}
