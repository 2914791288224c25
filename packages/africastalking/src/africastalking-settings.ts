import type { HttpProviderSettings } from '@verikit/provider-utils';

/** The Africa's Talking operations, named as the provider spec names them. */
export type AfricasTalkingOperation = 'sms.send';

/**
 * Settings of {@link createAfricasTalkingProvider}. Every one may be left out; the credentials, sender and
 * address then come from the environment variable named beside it, read at each call and never logged.
 */
export interface AfricasTalkingProviderSettings extends HttpProviderSettings<AfricasTalkingOperation> {
  /** Your Africa's Talking application username; `sandbox` for the sandbox app. Default: `AFRICASTALKING_USERNAME`. */
  readonly username?: string;
  /** Your application's API key, sent in the `apiKey` header. Default: `AFRICASTALKING_API_KEY`. */
  readonly apiKey?: string;
  /**
   * The registered short code or alphanumeric sender id used when a call gives no `from`. Default:
   * `AFRICASTALKING_SENDER_ID`; without one, Africa's Talking sends from its own default sender.
   */
  readonly senderId?: string;
  /**
   * The API's base URL. Default: `AFRICASTALKING_BASE_URL`, else `https://api.sandbox.africastalking.com` when the
   * username is `sandbox` and `https://api.africastalking.com` otherwise (as the official SDK chooses).
   */
  readonly baseUrl?: string;
  /**
   * The USSD service code registered for your application (`*384*1234#`). Given, the provider takes dial-in
   * flows: the user dials this code with the flow's reference, and Africa's Talking posts the session to your
   * callback URL (`@verikit/http`'s dial-in route). Without it the provider has no `dialIn` capability.
   * Default: `AFRICASTALKING_USSD_SERVICE_CODE`, read once when the provider is created.
   */
  readonly ussdServiceCode?: string;
}
