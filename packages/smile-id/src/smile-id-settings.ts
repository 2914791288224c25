import type { HttpProviderSettings } from '@verikit/provider-utils';

/** The Smile ID operations, named as the provider spec names them. */
export type SmileIdOperation = 'identitySteps.match' | 'identitySteps.face';

/**
 * Settings of {@link createSmileIdProvider}. Every one may be left out; the credentials and address then come from
 * the environment variable named beside it, read at each call and never logged.
 */
export interface SmileIdProviderSettings extends HttpProviderSettings<SmileIdOperation> {
  /** Your Smile ID partner id. Default: `SMILE_ID_PARTNER_ID`. */
  readonly partnerId?: string;
  /** Your Smile ID API key: it signs every request (HMAC-SHA256) and is never sent. Default: `SMILE_ID_API_KEY`. */
  readonly apiKey?: string;
  /**
   * The API's base URL, with its version. Default: `SMILE_ID_BASE_URL`, else `https://api.smileidentity.com/v1`
   * (the sandbox is `https://testapi.smileidentity.com/v1`).
   */
  readonly baseUrl?: string;
  /**
   * Where Smile ID posts a Biometric KYC job's result (its API requires one); the provider also polls `job_status`.
   * Default: `SMILE_ID_CALLBACK_URL`; without one the face step is not offered.
   */
  readonly callbackUrl?: string;
  /** How many times a face job's status is asked for before the call gives up (one every `pollMs`). Default 10. */
  readonly pollAttempts?: number;
  /** Milliseconds between two asks of a face job's status. Default 1000. */
  readonly pollMs?: number;
}
