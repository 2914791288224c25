import { InvalidInputError } from '@verikit/provider';
import { startTermiiFake, termiiMagicDescriptions, termiiMagicNumbers, type TermiiFake } from '@verikit/termii/fake';
import { startTwilioFake, twilioMagicDescriptions, twilioMagicNumbers, type TwilioFake } from '@verikit/twilio/fake';
import type { CliIo } from './cli-io.js';

/** The providers whose fakes `verikit sandbox --provider` starts. */
export type FakeProvider = 'termii' | 'twilio';

/** A running provider fake, as the CLI returns it. */
export type ProviderFakeRun =
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
    };

/** The options of the fake run that the sandbox flags give. */
export interface FakeFlags {
  /** Port on 127.0.0.1 (`--port`). Default 0: a free one. */
  readonly port?: number;
  /** Latency added to every answer, in ms (`--latency`). */
  readonly latencyMs?: number;
  /** Latency of the magic "slow" numbers, in ms (`--slow`). */
  readonly slowMs?: number;
  /** Termii: the API key to accept; Twilio: the auth token. Never printed. */
  readonly secret?: string;
}

function magicLines(
  numbers: Readonly<Record<string, string>>,
  descriptions: Readonly<Record<string, string>>,
): string[] {
  return Object.entries(numbers).map(
    ([number, behaviour]) => `    ${number}  ${behaviour}: ${descriptions[behaviour]}`,
  );
}

/**
 * `verikit sandbox --provider termii|twilio`: starts the fake of that provider's public API and prints what
 * to give the provider (as environment variables) and its magic numbers. A given key or token is never printed.
 */
export async function runProviderFake(
  provider: FakeProvider,
  flags: FakeFlags,
  io: CliIo,
): Promise<ProviderFakeRun | number> {
  const common = {
    ...(flags.port === undefined ? {} : { port: flags.port }),
    ...(flags.latencyMs === undefined ? {} : { latencyMs: flags.latencyMs }),
    ...(flags.slowMs === undefined ? {} : { slowMs: flags.slowMs }),
  };
  const shown = (value: string) => (flags.secret === undefined ? value : '(as given, not shown)');
  try {
    if (provider === 'termii') {
      const fake = await startTermiiFake({
        ...common,
        ...(flags.secret === undefined ? {} : { apiKey: flags.secret }),
      });
      fake.onRequest((line) =>
        io.out(`${new Date().toISOString().slice(11, 23)} ← ${line.method} ${line.path} ${line.status}`),
      );
      io.out(`verikit termii fake listening on ${fake.url}`);
      io.out(`  TERMII_BASE_URL=${fake.baseUrl}`);
      io.out(`  TERMII_API_KEY=${shown(fake.apiKey)}`);
      io.out(`  outbox: GET ${fake.url}/__fake/outbox`);
      io.out('  magic numbers:');
      for (const line of magicLines(termiiMagicNumbers, termiiMagicDescriptions)) io.out(line);
      return { provider, fake, close: () => fake.close() };
    }
    const fake = await startTwilioFake({
      ...common,
      ...(flags.secret === undefined ? {} : { authToken: flags.secret }),
    });
    fake.onRequest((line) =>
      io.out(`${new Date().toISOString().slice(11, 23)} ← ${line.method} ${line.path} ${line.status}`),
    );
    io.out(`verikit twilio fake listening on ${fake.url}`);
    io.out(`  TWILIO_VERIFY_BASE_URL=${fake.settings.verifyBaseUrl}`);
    io.out(`  TWILIO_API_BASE_URL=${fake.settings.apiBaseUrl}`);
    io.out(`  TWILIO_ACCOUNT_SID=${fake.settings.accountSid}`);
    io.out(`  TWILIO_AUTH_TOKEN=${shown(fake.settings.authToken)}`);
    io.out(`  TWILIO_VERIFY_SERVICE_SID=${fake.settings.verifyServiceSid}`);
    io.out(`  outbox: GET ${fake.url}/__fake/outbox`);
    io.out('  magic numbers:');
    for (const line of magicLines(twilioMagicNumbers, twilioMagicDescriptions)) io.out(line);
    return { provider, fake, close: () => fake.close() };
  } catch (error) {
    if (InvalidInputError.isInstance(error)) {
      io.err(`verikit sandbox: ${error.message}`);
      return 2;
    }
    io.err(
      `verikit sandbox: could not start: ${error instanceof Error && 'code' in error ? String(error.code) : 'unknown error'}`,
    );
    return 1;
  }
}
