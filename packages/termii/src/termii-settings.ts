import type { HttpProviderSettings, MessageTemplates } from '@verikit/provider-utils';

/** The Termii operations, named as the provider spec names them. */
export type TermiiOperation = 'phone.send' | 'phone.check' | 'phone.reach' | 'sms.send' | 'whatsapp.send';

/** Termii's routes: `dnd` reaches numbers on Do-Not-Disturb lists (and is the one for codes); `generic` does not. */
export type TermiiRoute = 'dnd' | 'generic';

/** How SMS codes go: by Termii's token API, or as messages carrying a code the provider makes. */
export type TermiiSmsCodes = 'token' | 'messaging';

/**
 * Settings of {@link createTermiiProvider}. Every one may be left out; the key and addresses then come from
 * the environment variable named beside it, read at each call and never logged.
 */
export interface TermiiProviderSettings extends HttpProviderSettings<TermiiOperation> {
  /** Your Termii API key, sent as `api_key` in each body. Default: `TERMII_API_KEY`. */
  readonly apiKey?: string;
  /** Your account's base URL from the Termii dashboard. Default: `TERMII_BASE_URL`, else `https://api.ng.termii.com`. */
  readonly baseUrl?: string;
  /**
   * The approved sender id used when a call gives no `from` (3 to 11 letters or digits, or a numeric sender).
   * Default: `TERMII_SENDER_ID`; without one, SMS and phone sends need `from`.
   */
  readonly senderId?: string;
  /** The WhatsApp device name used as `from` on WhatsApp. Default: `TERMII_WHATSAPP_FROM`, else the sender id. */
  readonly whatsappFrom?: string;
  /** The route of one-time codes. Default `dnd`: the generic route does not reach numbers on Do-Not-Disturb. */
  readonly otpRoute?: TermiiRoute;
  /**
   * How SMS codes are sent. `token` (the default): Send Token, Termii makes and checks the code; its answer names no
   * message id, so Termii's delivery reports of those codes reach no flow. `messaging`: the provider makes the code
   * (checked here against a keyed hash in the requestId, as WhatsApp codes are) and sends it as a message on
   * `otpRoute` by Send message, whose answer names the `message_id` its delivery reports name: an SMS code that is not
   * delivered then moves the flow to its plan's next channel at once (docs/providers/termii.md, "Delivery reports").
   */
  readonly smsCodes?: TermiiSmsCodes;
  /**
   * Look each number up before a flow's first send (Termii's Search API, `GET /api/check/dnd`: one request per flow
   * whose plan has several channels, which Termii may charge for) and tell the engine that SMS cannot reach a number
   * Termii reports `DND blacklisted`: the flow's plan then leaves SMS out (docs/plans.md, "Plans that know the
   * number"). Only with `otpRoute: 'generic'`: on the `dnd` route, which reaches numbers on Do-Not-Disturb once Termii
   * activated it on the account, there is nothing to leave out. Default false: no lookup.
   */
  readonly dndLookup?: boolean;
  /** The route of other SMS. Default `generic`. */
  readonly messageRoute?: TermiiRoute;
  /** Digits of the codes Termii makes: 4 to 8. Default 6. */
  readonly pinLength?: number;
  /** Checks Termii allows per code (`pin_attempts`), at least 1. Default 5. */
  readonly pinAttempts?: number;
  /** Minutes a code lives (`pin_time_to_live`), 0 to 60. Default 10. */
  readonly pinTimeToLiveMinutes?: number;
  /** The text of an SMS code, with `< 1234 >` where the code goes. Default `Your verification code is < 1234 >`. */
  readonly messageText?: string;
  /**
   * The text of SMS codes per locale, each with `< 1234 >` where the code goes: `{ fr: 'Votre code est < 1234 >' }`
   * (or `{ fr: { sms: '…' } }`). A flow's `locale` picks one (`pt-BR`, then `pt`); none found: `messageText`.
   * Termii's voice and WhatsApp codes take no text (Termii writes those messages), so a text for `voice` or
   * `whatsapp` is refused. Checked at creation: a text without `< 1234 >` is an `InvalidInputError` naming it
   * (`messageTemplates.fr.sms`).
   */
  readonly messageTemplates?: MessageTemplates;
  /**
   * The host of the site the codes are for (`example.com`): every SMS code's text then ends with the origin-bound
   * line `@example.com #123456`, so that WebOTP (Chrome on Android) and iOS/macOS autofill give the code to that
   * site's pages only, never a phishing page's. A DNS name only (no scheme, port or path); set here, never taken
   * from a request. With it, `messageText` and every SMS template must fit one SMS once the code is in (160 GSM-7
   * characters, or 70 with any other), checked at creation. Absent: no line (default).
   */
  readonly originBoundHost?: string;
  /**
   * An Android app's SMS Retriever hash (11 characters, `FA+9qCX9VSu`): every SMS code's text then ends with it
   * (after the origin line when there is one), so that the app reads the code without the SMS permission. The text
   * must then fit one SMS (140 bytes), checked at creation.
   */
  readonly appHash?: string;
}
