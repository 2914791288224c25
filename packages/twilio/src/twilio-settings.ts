import type { HttpProviderSettings } from '@verikit/provider-utils';

/** The Twilio operations, named as the provider spec names them. */
export type TwilioOperation = 'phone.send' | 'phone.check' | 'sms.send' | 'whatsapp.send';

/**
 * Settings of {@link createTwilioProvider}. Every one may be left out; it then comes from the environment
 * variable named beside it, read at each call and never logged. Credentials: the account SID with either
 * its auth token or an API key pair (SID and secret).
 */
export interface TwilioProviderSettings extends HttpProviderSettings<TwilioOperation> {
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
  /**
   * An approved WhatsApp content template, `HX…` (Twilio's Content API): WhatsApp messages are sent with it as
   * `ContentSid`, the text (or the code) as its variable `1` in `ContentVariables`. Outside the 24-hour window
   * only a template reaches the user. Default: `TWILIO_WHATSAPP_CONTENT_SID`.
   */
  readonly whatsappContentSid?: string;
  /**
   * Approved WhatsApp content templates per language, `{ fr: 'HX…', 'pt-BR': 'HX…' }`: a WhatsApp template is
   * approved in one language, so each translation is a template of its own. A send in a locale takes the exact
   * tag's template, then its language's (`pt` for `pt-BR`), then `whatsappContentSid`; with none of them, the send
   * is an `InvalidInputError` before any request (never free text). The locale is a flow's `locale`, else the
   * `locale` setting.
   */
  readonly whatsappContentSids?: Readonly<Record<string, string>>;
  /**
   * True to send WhatsApp as free text (`Body`) when no template is configured at all (neither
   * `whatsappContentSid` nor `whatsappContentSids`). Twilio accepts it and
   * then fails it with error 63016 unless the user wrote to you in the last 24 hours. Default false: without a
   * template, a WhatsApp send is refused before any request.
   */
  readonly whatsappFreeText?: boolean;
  /**
   * How `phone.send` sends a WhatsApp code: `verify` (default) through Verify's WhatsApp channel; `messaging`
   * through Programmable Messaging from `whatsappFrom`, with a code the provider makes (the template, or free text
   * when allowed), checked against a keyed hash in the requestId, so its status callbacks reach the flow.
   */
  readonly whatsappCodes?: 'verify' | 'messaging';
  /**
   * Where Twilio posts the status of each message (`StatusCallback` on every Messaging send): the full public URL
   * of your webhook route, e.g. `https://app.example.com/verikit/webhooks`. With it, the provider parses the
   * callbacks into delivery receipts. Default: `TWILIO_STATUS_CALLBACK_URL`; none: no callbacks.
   */
  readonly statusCallbackUrl?: string;
  /** The language of verification messages when a call names none (`en`, `fr`, `pt-BR`…). Default: Twilio's choice. */
  readonly locale?: string;
  /** True when Twilio enabled custom codes on your Verify service: `phone.send` then accepts our code. Default false. */
  readonly customCode?: boolean;
  /**
   * An Android app's SMS Retriever hash (11 characters, `FA+9qCX9VSu`), sent as Verify's `AppHash` with SMS
   * verifications: Twilio appends it to the SMS it writes, so the app reads the code without the SMS permission.
   * Verify writes the text itself, so its SMS carry no origin-bound line (`@example.com #123456`). Default: none.
   */
  readonly appHash?: string;
  /** Verify's base URL. Default: `TWILIO_VERIFY_BASE_URL`, else `https://verify.twilio.com`. */
  readonly verifyBaseUrl?: string;
  /** The REST API's base URL (Messaging). Default: `TWILIO_API_BASE_URL`, else `https://api.twilio.com`. */
  readonly apiBaseUrl?: string;
}
