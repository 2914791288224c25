import {
  africasTalkingMagicDescriptions,
  africasTalkingMagicNumbers,
  startAfricasTalkingFake,
  type AfricasTalkingFake,
} from '@verikit/africastalking/fake';
import { type GatewayFake, startGatewayFake } from '@verikit/gateway/fake';
import { startTermiiFake, termiiMagicDescriptions, termiiMagicNumbers, type TermiiFake } from '@verikit/termii/fake';
import { startTwilioFake, twilioMagicDescriptions, twilioMagicNumbers, type TwilioFake } from '@verikit/twilio/fake';
import type { CliIo } from './cli-io.js';
import { displayUrl, formatEvent } from './format-event.js';

/** The providers whose fakes `verikit sandbox --provider` starts. */
export type FakeProvider = 'gateway' | 'termii' | 'twilio' | 'africastalking';

/** What the flags of `verikit sandbox` give a fake, already checked. */
export interface FakeFlags {
  /** Port on 127.0.0.1 (`--port`). Default 0: a free one. */
  readonly port?: number;
  /** Latency added to every answer, in ms (`--latency`). */
  readonly latencyMs?: number;
  /** Latency of the magic "slow" numbers, in ms (`--slow`). */
  readonly slowMs?: number;
  /**
   * The key the fake accepts (`--api-key`): the gateway's apiKey, Termii's API key, Twilio's auth token,
   * Africa's Talking's API key.
   */
  readonly apiKey?: string;
  /**
   * Where the fake calls the application (`--webhook-url`): the gateway's USSD_VERIFICATION webhooks, Africa's
   * Talking's USSD session requests.
   */
  readonly webhookUrl?: string;
  /** Gateway only: the webhook signing secret, `whsec_…` (`--webhook-secret`). */
  readonly webhookSecret?: string;
  /** Gateway only: wrong codes allowed per phone verification (`--max-attempts`). */
  readonly maxAttempts?: number;
}

/** A running fake, as the CLI returns it. */
export type FakeRun =
  | {
      /** Which provider's API the fake plays. */
      readonly provider: 'gateway';
      /** The running fake: its URL, outbox, USSD dialling and webhooks. */
      readonly fake: GatewayFake;
      /** Stops the fake (webhook retries, then the server). */
      close(): Promise<void>;
    }
  | {
      /** Which provider's API the fake plays. */
      readonly provider: 'termii';
      /** The running fake: its URL, outbox and magic numbers. */
      readonly fake: TermiiFake;
      /** Stops the fake's server. */
      close(): Promise<void>;
    }
  | {
      /** Which provider's API the fake plays. */
      readonly provider: 'twilio';
      /** The running fake: its URL, settings, outbox and magic numbers. */
      readonly fake: TwilioFake;
      /** Stops the fake's server. */
      close(): Promise<void>;
    }
  | {
      /** Which provider's API the fake plays. */
      readonly provider: 'africastalking';
      /** The running fake: its URL, settings, outbox, magic numbers and USSD dialler. */
      readonly fake: AfricasTalkingFake;
      /** Stops the fake (pending delivery reports, then the server). */
      close(): Promise<void>;
    };

/** A started fake and what to print about it. */
interface Started {
  readonly run: FakeRun;
  /** The `.env` block: every variable the provider's factory reads when called with no settings. */
  readonly env: readonly string[];
  /** Where to look and what to try: the outbox, magic numbers, webhooks. */
  readonly notes: readonly string[];
  /** What its inbox page shows, after its address. */
  readonly inbox: string;
}

/** The sender every fake's `.env` names: accepted by each of them (Termii wants 3 to 11 letters or digits). */
const sender = 'Verikit';

const requestLine = (line: { method: string; path: string; status: number }) =>
  `${new Date().toISOString().slice(11, 23)} ← ${line.method} ${line.path} ${line.status}`;

function magicLines(
  numbers: Readonly<Record<string, string>>,
  descriptions: Readonly<Record<string, string>>,
): string[] {
  return ['magic numbers:', ...Object.entries(numbers).map(([n, what]) => `  ${n}  ${what}: ${descriptions[what]}`)];
}

/** `NAME=value`, or a comment when the value was given on the command line (never printed). */
const secretLine = (name: string, value: string, given: boolean) =>
  given ? `# ${name}=<the value you gave; not printed>` : `${name}=${value}`;

const common = (flags: FakeFlags) => ({
  ...(flags.port === undefined ? {} : { port: flags.port }),
  ...(flags.latencyMs === undefined ? {} : { latencyMs: flags.latencyMs }),
  ...(flags.slowMs === undefined ? {} : { slowMs: flags.slowMs }),
});

/**
 * The one table of fakes: per provider, how to start its fake from the flags, and what to print so that the
 * provider's env-only factory (`createGatewayProvider()`, `createTermiiProvider()`, `createTwilioProvider()`,
 * `createAfricasTalkingProvider()`)
 * runs against it once the `.env` block is pasted.
 */
export const fakes: Readonly<Record<FakeProvider, (flags: FakeFlags, io: CliIo) => Promise<Started>>> = {
  async gateway(flags, io) {
    const fake = await startGatewayFake({
      ...common(flags),
      // The USSD base address is a listener of its own (another host in the interface): the port after --port.
      ...(flags.port === undefined || flags.port === 0 || flags.port === 65_535 ? {} : { ussdPort: flags.port + 1 }),
      ...(flags.apiKey === undefined ? {} : { apiKey: flags.apiKey }),
      ...(flags.webhookUrl === undefined ? {} : { webhookUrl: flags.webhookUrl }),
      ...(flags.webhookSecret === undefined ? {} : { webhookSecret: flags.webhookSecret }),
      ...(flags.maxAttempts === undefined ? {} : { maxAttempts: flags.maxAttempts }),
    });
    fake.onRequest((event) => io.out(formatEvent(event)));
    return {
      run: { provider: 'gateway', fake, close: () => fake.close() },
      env: [
        secretLine('GATEWAY_API_KEY', fake.apiKey, flags.apiKey !== undefined),
        `GATEWAY_BASE_URL=${fake.baseUrl}`,
        `GATEWAY_USSD_BASE_URL=${fake.ussdBaseUrl}`,
        `GATEWAY_SENDER=${sender}`,
        secretLine('VERIKIT_WEBHOOK_SECRET', fake.webhookSecret, flags.webhookSecret !== undefined),
        // The engine's limit must match the fake's, or a right code after the fake's last try reads "not correct".
        `VERIKIT_MAX_ATTEMPTS=${fake.maxAttempts}`,
      ],
      notes: [
        ...(flags.webhookSecret === undefined ? ['VERIKIT_WEBHOOK_SECRET: generated for this run'] : []),
        `webhooks: ${flags.webhookUrl === undefined ? 'none (pass --webhook-url)' : displayUrl(flags.webhookUrl)}`,
        `outbox:   GET ${fake.url}/__sandbox/outbox   dial USSD: POST ${fake.url}/__sandbox/ussd/dial`,
      ],
      inbox: 'what the phones received, USSD dialling, webhooks',
    };
  },
  async termii(flags, io) {
    const fake = await startTermiiFake({
      ...common(flags),
      ...(flags.apiKey === undefined ? {} : { apiKey: flags.apiKey }),
    });
    fake.onRequest((line) => io.out(requestLine(line)));
    return {
      run: { provider: 'termii', fake, close: () => fake.close() },
      env: [
        secretLine('TERMII_API_KEY', fake.apiKey, flags.apiKey !== undefined),
        `TERMII_BASE_URL=${fake.baseUrl}`,
        `TERMII_SENDER_ID=${sender}`,
      ],
      notes: [`outbox:   GET ${fake.url}/__fake/outbox`, ...magicLines(termiiMagicNumbers, termiiMagicDescriptions)],
      inbox: 'what the phones received',
    };
  },
  async twilio(flags, io) {
    const fake = await startTwilioFake({
      ...common(flags),
      ...(flags.apiKey === undefined ? {} : { authToken: flags.apiKey }),
    });
    fake.onRequest((line) => io.out(requestLine(line)));
    const { settings } = fake;
    return {
      run: { provider: 'twilio', fake, close: () => fake.close() },
      env: [
        `TWILIO_ACCOUNT_SID=${settings.accountSid}`,
        secretLine('TWILIO_AUTH_TOKEN', settings.authToken, flags.apiKey !== undefined),
        `TWILIO_VERIFY_SERVICE_SID=${settings.verifyServiceSid}`,
        `TWILIO_VERIFY_BASE_URL=${settings.verifyBaseUrl}`,
        `TWILIO_API_BASE_URL=${settings.apiBaseUrl}`,
        // A Twilio magic "from" number: the fake, like Twilio's test credentials, accepts it.
        'TWILIO_FROM=+15005550006',
        // Twilio's WhatsApp sandbox sender, and the approved template the fake knows.
        'TWILIO_WHATSAPP_FROM=+14155238886',
        `TWILIO_WHATSAPP_CONTENT_SID=${fake.whatsappContentSid}`,
      ],
      notes: [`outbox:   GET ${fake.url}/__fake/outbox`, ...magicLines(twilioMagicNumbers, twilioMagicDescriptions)],
      inbox: 'what the phones received',
    };
  },
  async africastalking(flags, io) {
    const fake = await startAfricasTalkingFake({
      ...common(flags),
      ...(flags.apiKey === undefined ? {} : { apiKey: flags.apiKey }),
      ...(flags.webhookUrl === undefined ? {} : { callbackUrl: flags.webhookUrl }),
    });
    fake.onRequest((line) => io.out(requestLine(line)));
    const { settings } = fake;
    return {
      run: { provider: 'africastalking', fake, close: () => fake.close() },
      env: [
        `AFRICASTALKING_USERNAME=${settings.username}`,
        secretLine('AFRICASTALKING_API_KEY', settings.apiKey, flags.apiKey !== undefined),
        `AFRICASTALKING_BASE_URL=${settings.baseUrl}`,
        `AFRICASTALKING_SENDER_ID=${sender}`,
        // The code the fake serves: with it the env-only provider has dial-in (kind: 'dial-in' flows).
        `AFRICASTALKING_USSD_SERVICE_CODE=${fake.serviceCode}`,
      ],
      notes: [
        `USSD sessions: ${flags.webhookUrl === undefined ? 'none (pass --webhook-url, your USSD callback)' : displayUrl(flags.webhookUrl)}`,
        `dial-in:  --webhook-url is your createDialInHandler route (@verikit/http); its allow-list must take 127.0.0.1`,
        `outbox:   GET ${fake.url}/__fake/outbox   dial ${fake.serviceCode}: POST ${fake.url}/__fake/ussd/dial {"phoneNumber","code"}`,
        `          a dial-in flow's code is the view's ussdCode (${fake.serviceCode.slice(0, -1)}*<reference>#)`,
        ...magicLines(africasTalkingMagicNumbers, africasTalkingMagicDescriptions),
      ],
      inbox: 'what the phones received, dialling your USSD callback, the callbacks sent',
    };
  },
};
