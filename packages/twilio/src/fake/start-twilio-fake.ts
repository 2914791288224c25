import {
  clampLatency,
  fakeParts,
  serveProviderFake,
  type FakeRequest,
  type RunningFake,
} from '@verikit/provider-utils/fake';
import { TwilioFakeVerifications } from './twilio-fake-verifications.js';
import {
  TwilioFakeMessages,
  type TwilioFakeStatusCallback,
  type TwilioFakeWebhookSharedKey,
} from './twilio-fake-messages.js';
import { mountTwilioRoutes, type TwilioFakeMessage, type TwilioFakeTemplate } from './twilio-fake-routes.js';

/** A content template of the fake: its text, its language and whether WhatsApp approved it. */
export interface TwilioFakeContentTemplate {
  /** The text, with `{{1}}`, `{{2}}`… where `ContentVariables` go. */
  readonly text: string;
  /** Its language (Twilio's Content resource has one: a translation is a template of its own). Default `en`. */
  readonly language?: string;
  /**
   * Whether WhatsApp approved it. Default true. An unapproved template reaches a user only within the 24-hour
   * window, as free text does; outside it the message is `failed` with 63016.
   */
  readonly approved?: boolean;
}

/** Options of {@link startTwilioFake}. */
export interface TwilioFakeOptions {
  /** The account SID the fake serves. Default `AC` and 32 `f`s. */
  readonly accountSid?: string;
  /** The auth token the fake accepts. Default `twilio-fake-auth-token`. */
  readonly authToken?: string;
  /** An API key pair the fake accepts too. */
  readonly apiKey?: {
    /** The API key's SID (`SK…`), used as the Basic auth user. */
    readonly sid: string;
    /** Its secret, used as the Basic auth password. */
    readonly secret: string;
  };
  /** The Verify service the fake serves. Default `VA` and 32 `f`s. */
  readonly verifyServiceSid?: string;
  /** Whether Verify accepts `CustomCode`. Default true. */
  readonly customCode?: boolean;
  /** Port on 127.0.0.1. Default 0: a free one. */
  readonly port?: number;
  /** Latency added to every answer, in ms. Default 0. */
  readonly latencyMs?: number;
  /** Latency of the magic "slow" numbers, in ms. Default 3000. */
  readonly slowMs?: number;
  /**
   * The account's content templates: `HX…` SID → its text with `{{1}}`… placeholders (approved, in English), or
   * `{ text, language, approved }`. Default: one approved English authentication template whose SID is
   * `fake.whatsappContentSid` ("{{1}} is your verification code. …").
   */
  readonly contentTemplates?: Readonly<Record<string, string | TwilioFakeContentTemplate>>;
  /** The time between a message's status changes (and their callbacks), in ms. Default 20. */
  readonly statusDelayMs?: number;
  /**
   * The account's webhook SharedKey: status callbacks are then signed with its secret (HMAC-SHA256 unless it says
   * otherwise) and carry `X-Twilio-Webhooks-Signature-Settings`, as Twilio signs once an account switches. Default:
   * none, callbacks signed with the auth token (HMAC-SHA1).
   */
  readonly webhookSharedKey?: TwilioFakeWebhookSharedKey;
}

/** A request the fake answered, for logs (never a body, nor the query string). */
export type TwilioFakeRequest = FakeRequest;

/** The provider settings that point at a fake. */
export interface TwilioFakeSettings {
  /** The account the fake accepts. */
  readonly accountSid: string;
  /** The auth token the fake accepts; the fake never prints it. */
  readonly authToken: string;
  /** The Verify service SID to send verifications to. */
  readonly verifyServiceSid: string;
  /** The fake, standing in for `https://verify.twilio.com`. */
  readonly verifyBaseUrl: string;
  /** The fake, standing in for `https://api.twilio.com`. */
  readonly apiBaseUrl: string;
}

/** A running Twilio fake. */
export interface TwilioFake extends RunningFake<TwilioFakeRequest, TwilioFakeMessage> {
  /** Spread into `createTwilioProvider` to point it at the fake. */
  readonly settings: TwilioFakeSettings;
  /** The user of `phoneNumber` (E.164) wrote to you on WhatsApp (at `at`): free-form WhatsApp reaches them for 24 hours. */
  openWhatsAppWindow(phoneNumber: string, at?: number): void;
  /** Every status callback sent so far (the message, the status, what your endpoint answered), oldest first. */
  readonly statusCallbacks: readonly TwilioFakeStatusCallback[];
  /** Resolves once every message's status changes and callbacks under way have happened. */
  messagesSettled(): Promise<void>;
  /** The SID (`HX…`) of the approved WhatsApp template the fake knows by default, for `whatsappContentSid`. */
  readonly whatsappContentSid: string;
}

/** The credentials and SIDs the fake uses unless told otherwise. */
const defaultTwilioFakeSettings = Object.freeze({
  /** `AC` and 32 `f`s: shaped like a real account SID, so the provider's checks pass. */
  accountSid: `AC${'f'.repeat(32)}`,
  /** The auth token. */
  authToken: 'twilio-fake-auth-token',
  /** `VA` and 32 `f`s: shaped like a real Verify service SID. */
  verifyServiceSid: `VA${'f'.repeat(32)}`,
  /** `HX` and 32 `f`s: the approved WhatsApp authentication template the fake knows by default. */
  whatsappContentSid: `HX${'f'.repeat(32)}`,
});

/** The default template's text, as WhatsApp's authentication templates read. */
const authenticationTemplate = '{{1}} is your verification code. For your security, do not share this code.';

/**
 * Starts a fake of Twilio's Verify v2 and Programmable Messaging APIs on 127.0.0.1, with an outbox, magic
 * numbers that fail on purpose (`twilioMagicNumbers`) and latency. For tests and for development.
 *
 * @example
 * const fake = await startTwilioFake();
 * const provider = createTwilioProvider({ ...fake.settings, from: '+15005550006' });
 */
export async function startTwilioFake(options: TwilioFakeOptions = {}): Promise<TwilioFake> {
  const parts = fakeParts<FakeRequest, TwilioFakeMessage>(options);
  const verifications = new TwilioFakeVerifications();
  const accountSid = options.accountSid ?? defaultTwilioFakeSettings.accountSid;
  const authToken = options.authToken ?? defaultTwilioFakeSettings.authToken;
  const verifyServiceSid = options.verifyServiceSid ?? defaultTwilioFakeSettings.verifyServiceSid;
  const credentials = new Map([[accountSid, authToken]]);
  if (options.apiKey !== undefined) credentials.set(options.apiKey.sid, options.apiKey.secret);
  const statusDelayMs = clampLatency(options.statusDelayMs ?? 20);
  const messages = new TwilioFakeMessages({
    accountSid,
    authToken,
    webhookSharedKey: options.webhookSharedKey,
    delayMs: () => statusDelayMs,
  });
  const templates = new Map<string, TwilioFakeTemplate>(
    Object.entries(
      options.contentTemplates ?? { [defaultTwilioFakeSettings.whatsappContentSid]: authenticationTemplate },
    ).map(([sid, template]) => [
      sid,
      typeof template === 'string'
        ? { text: template, language: 'en', approved: true }
        : { text: template.text, language: template.language ?? 'en', approved: template.approved ?? true },
    ]),
  );
  const fake = await serveProviderFake(parts, {
    name: 'twilio',
    port: options.port,
    routes: (app) =>
      mountTwilioRoutes(app, {
        ...parts,
        messages,
        templates,
        accountSid,
        credentials,
        verifyServiceSid,
        customCode: options.customCode ?? true,
        verifications,
      }),
    notFound: (c) =>
      c.json(
        {
          code: 20404,
          message: 'The requested resource was not found',
          more_info: 'https://www.twilio.com/docs/errors/20404',
          status: 404,
        },
        404,
      ),
    clearPending: () => {
      verifications.clear();
      messages.clear();
    },
  });
  return Object.assign(fake, {
    settings: { accountSid, authToken, verifyServiceSid, verifyBaseUrl: fake.url, apiBaseUrl: fake.url },
    openWhatsAppWindow: (phoneNumber: string, at?: number) => messages.openWhatsAppWindow(phoneNumber, at),
    // The live list (`Object.assign` would copy a getter's value once).
    statusCallbacks: messages.callbacks,
    messagesSettled: () => messages.settled(),
    whatsappContentSid: defaultTwilioFakeSettings.whatsappContentSid,
  });
}
