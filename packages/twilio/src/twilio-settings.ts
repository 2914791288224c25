import type { HttpHooks } from '@verikit/provider-utils';

/** The Twilio operations, named as the provider spec names them. */
export type TwilioOperation = 'phone.send' | 'phone.check' | 'sms.send' | 'whatsapp.send';

/**
 * Settings of {@link createTwilioProvider}. Every one may be left out; it then comes from the environment
 * variable named beside it, read at each call and never logged. Credentials: the account SID with either
 * its auth token or an API key pair (SID and secret).
 */
export interface TwilioProviderSettings {
  /** `AC…`. Default: `TWILIO_ACCOUNT_SID`. */
  readonly accountSid?: string;
  /** The account's auth token (Basic auth password, and the key of `X-Twilio-Signature`). Default: `TWILIO_AUTH_TOKEN`. */
  readonly authToken?: string;
  /** An API key SID, `SK…`, used with `apiKeySecret` instead of the auth token. Default: `TWILIO_API_KEY_SID`. */
  readonly apiKeySid?: string;
  /** The API key's secret. Default: `TWILIO_API_KEY_SECRET`. */
  readonly apiKeySecret?: string;
  /** The Verify service, `VA…`, for phone verification. Default: `TWILIO_VERIFY_SERVICE_SID`. */
  readonly verifyServiceSid?: string;
  /** SMS sender used when a call gives no `from`: an E.164 number or an alphanumeric sender id. Default: `TWILIO_FROM`. */
  readonly from?: string;
  /** A Messaging Service, `MG…`, used when a call gives no `from` (before `from`). Default: `TWILIO_MESSAGING_SERVICE_SID`. */
  readonly messagingServiceSid?: string;
  /** The WhatsApp sender, an E.164 number (sent as `whatsapp:+…`). Default: `TWILIO_WHATSAPP_FROM`. */
  readonly whatsappFrom?: string;
  /** The language of verification messages when a call names none (`en`, `fr`, `pt-BR`…). Default: Twilio's choice. */
  readonly locale?: string;
  /** True when Twilio enabled custom codes on your Verify service: `phone.send` then accepts our code. Default false. */
  readonly customCode?: boolean;
  /** Verify's base URL. Default: `TWILIO_VERIFY_BASE_URL`, else `https://verify.twilio.com`. */
  readonly verifyBaseUrl?: string;
  /** The REST API's base URL (Messaging). Default: `TWILIO_API_BASE_URL`, else `https://api.twilio.com`. */
  readonly apiBaseUrl?: string;
  /** Per-request timeout in ms. Default 10 000. */
  readonly timeout?: number;
  /** A fetch to send through (a proxy agent, a test recorder). Default: undici's `Agent.request()` (decision 0510). */
  readonly fetch?: typeof globalThis.fetch;
  /** ky hooks for tracing and logging: they never see the credentials. */
  readonly hooks?: HttpHooks<TwilioOperation>;
  /** Retries of a refused connection. Default 1; 0 to 5. */
  readonly connectionRetries?: number;
  /** Wait before such a retry, in ms. Default 50. */
  readonly connectionRetryDelayMs?: number;
  /** `provider.name`. Default `twilio`. */
  readonly name?: string;
}
