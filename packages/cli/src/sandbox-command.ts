import { parseArgs } from 'node:util';
import { InvalidInputError } from '@verikit/provider';
import { generateWebhookSecret, startSandbox, type Sandbox } from '@verikit/sandbox';
import type { CliIo } from './cli-io.js';
import { displayUrl, formatEvent } from './format-event.js';
import { runProviderFake, type ProviderFakeRun } from './provider-fake-command.js';
import { parsePort } from './port-flag.js';
import { startFailureMessage } from './start-failure.js';

/** The help text of `verikit sandbox`. */
export const sandboxUsage = `Usage: verikit sandbox [options]

Runs the sandbox: an HTTP server on 127.0.0.1 that behaves like the service (docs/sandbox.md), or, with
--provider termii|twilio, a fake of that provider's public API (docs/providers/).

Options:
  --provider <name>      gateway (default: the sandbox), termii or twilio (their fakes)
  --port <n>             port to listen on (default 0: a free port)
  --api-key <key>        the apiKey to accept (or VERIKIT_SANDBOX_API_KEY; default: sandbox-api-key);
                         for termii the API key, for twilio the auth token
  --webhook-url <url>    where to send USSD_VERIFICATION webhooks
  --webhook-secret <s>   signing secret, whsec_<base64> (or VERIKIT_WEBHOOK_SECRET; default: generated)
  --latency <ms>         latency added to every answer (default 0)
  --slow <ms>            latency of the magic "slow" numbers (default 3000)
  -h, --help             this help`;

const integer = (name: string, value: string | undefined): number | undefined => {
  if (value === undefined) return undefined;
  if (!/^\d{1,6}$/.test(value)) throw new InvalidInputError([{ field: name, message: 'must be a whole number' }]);
  return Number(value);
};

/** The flags `verikit sandbox` accepts; throws on an unknown or malformed one. */
function readSandboxFlags(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    strict: true,
    allowPositionals: false,
    options: {
      port: { type: 'string' },
      'api-key': { type: 'string' },
      'webhook-url': { type: 'string' },
      'webhook-secret': { type: 'string' },
      latency: { type: 'string' },
      slow: { type: 'string' },
      provider: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  }).values;
}

/**
 * `verikit sandbox`: starts the sandbox and prints every request it answers and every webhook attempt
 * it makes. Never prints the apiKey or a given webhook secret; a generated secret is printed once, as
 * the receiver needs it. Resolves with the running sandbox, or with an exit code on bad flags.
 */
export async function runSandboxCommand(
  args: readonly string[],
  io: CliIo,
): Promise<Sandbox | ProviderFakeRun | number> {
  let parsed: ReturnType<typeof readSandboxFlags>;
  try {
    parsed = readSandboxFlags(args);
  } catch (error) {
    io.err(`verikit sandbox: ${error instanceof Error ? error.message.split('\n')[0] : 'bad arguments'}`);
    io.err(sandboxUsage);
    return 2;
  }
  if (parsed.help) {
    io.out(sandboxUsage);
    return 0;
  }
  const provider = parsed.provider ?? 'gateway';
  if (provider !== 'gateway' && provider !== 'termii' && provider !== 'twilio') {
    io.err('verikit sandbox: --provider must be gateway, termii or twilio');
    return 2;
  }
  if (provider !== 'gateway') {
    if (parsed['webhook-url'] !== undefined || parsed['webhook-secret'] !== undefined) {
      io.err(
        `verikit sandbox: --webhook-url and --webhook-secret are for the gateway sandbox, not --provider ${provider}`,
      );
      return 2;
    }
    try {
      const port = integer('--port', parsed.port);
      const latencyMs = integer('--latency', parsed.latency);
      const slowMs = integer('--slow', parsed.slow);
      const secret = parsed['api-key'];
      return await runProviderFake(
        provider,
        {
          ...(port === undefined ? {} : { port }),
          ...(latencyMs === undefined ? {} : { latencyMs }),
          ...(slowMs === undefined ? {} : { slowMs }),
          ...(secret === undefined ? {} : { secret }),
        },
        io,
      );
    } catch (error) {
      io.err(`verikit sandbox: ${InvalidInputError.isInstance(error) ? error.message : 'bad arguments'}`);
      return 2;
    }
  }
  const apiKey = parsed['api-key'] ?? io.env['VERIKIT_SANDBOX_API_KEY'];
  const givenSecret = parsed['webhook-secret'] ?? io.env['VERIKIT_WEBHOOK_SECRET'];
  const webhookSecret = givenSecret ?? generateWebhookSecret();
  let sandbox: Sandbox;
  let port: number | undefined;
  try {
    port = parsePort(parsed.port);
    const latencyMs = integer('--latency', parsed.latency);
    const slowMs = integer('--slow', parsed.slow);
    sandbox = await startSandbox({
      webhookSecret,
      ...(port === undefined ? {} : { port }),
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(parsed['webhook-url'] === undefined ? {} : { webhookUrl: parsed['webhook-url'] }),
      ...(latencyMs === undefined ? {} : { latencyMs }),
      ...(slowMs === undefined ? {} : { slowMs }),
    });
  } catch (error) {
    if (InvalidInputError.isInstance(error)) {
      const flag = error.field?.startsWith('--')
        ? error.field
        : flagOf(error.field, {
            apiKey: parsed['api-key'] === undefined,
            webhookSecret: parsed['webhook-secret'] === undefined,
          });
      io.err(`verikit sandbox: ${flag} ${error.issues[0]?.message ?? 'is invalid'}`);
      return 2;
    }
    io.err(`verikit sandbox: ${startFailureMessage(error, port)}`);
    return 1;
  }
  sandbox.onEvent((event) => io.out(formatEvent(event)));
  io.out(`verikit sandbox listening on ${sandbox.url}`);
  io.out(`  baseUrl:        ${sandbox.baseUrl}`);
  io.out(`  ussdBaseUrl:    ${sandbox.ussdBaseUrl}`);
  io.out(
    `  apiKey:         ${apiKey === undefined ? 'the default sandbox key (docs/sandbox.md)' : 'as given (not shown)'}`,
  );
  io.out(
    `  webhooks:       ${parsed['webhook-url'] === undefined ? 'none (pass --webhook-url)' : displayUrl(parsed['webhook-url'])}`,
  );
  io.out(
    `  webhook secret: ${givenSecret === undefined ? `${webhookSecret} (generated for this run)` : 'as given (not shown)'}`,
  );
  io.out(`  outbox:         GET ${sandbox.url}/__sandbox/outbox   dial USSD: POST ${sandbox.url}/__sandbox/ussd/dial`);
  return sandbox;
}

/**
 * The flag (or environment variable) a sandbox option came from, for error messages. `fromEnvironment`
 * says which of the options an environment variable can give were not given as flags.
 */
function flagOf(
  field: string | undefined,
  fromEnvironment: { readonly apiKey: boolean; readonly webhookSecret: boolean },
): string {
  const flags: Record<string, string> = {
    latencyMs: '--latency',
    slowMs: '--slow',
    webhookUrl: '--webhook-url',
    port: '--port',
  };
  if (field === 'apiKey') return fromEnvironment.apiKey ? 'VERIKIT_SANDBOX_API_KEY' : '--api-key';
  if (field === 'webhookSecret') return fromEnvironment.webhookSecret ? 'VERIKIT_WEBHOOK_SECRET' : '--webhook-secret';
  return (field === undefined ? undefined : flags[field]) ?? `--${field ?? 'input'}`;
}
