import { parseArgs } from 'node:util';
import { InvalidInputError } from '@verikit/provider';
import type { CliIo } from './cli-io.js';
import { type FakeFlags, type FakeProvider, type FakeRun, fakes } from './fakes.js';
import { parsePort } from './port-flag.js';
import { startFailureMessage } from './start-failure.js';

/** The help text of `verikit sandbox`. */
const sandboxUsage = `Usage: verikit sandbox [options]

Runs a fake of a provider's API on 127.0.0.1 (docs/sandbox.md): the gateway service by default, or Termii's,
Twilio's or Africa's Talking's public API. Prints a .env block that points the provider at it, then every request it answers.
Open the inbox it prints (http://127.0.0.1:<port>/__inbox) to see the messages, dial USSD codes and watch webhooks
(the gateway's) or callbacks (Africa's Talking's).

Options:
  --provider <name>      gateway (default), termii, twilio or africastalking
  --port <n>             port to listen on (default 0: a free port); the gateway's USSD base address
                         listens on the next one, n+1 (a free one with 0 or 65535)
  --api-key <key>        the key to accept: the gateway's apiKey (or VERIKIT_SANDBOX_API_KEY; default:
                         sandbox-api-key), Termii's API key, Twilio's auth token, Africa's Talking's API key
  --latency <ms>         latency added to every answer (default 0)
  --slow <ms>            latency of the magic "slow" numbers (default 3000)
  -h, --help             this help

Gateway and Africa's Talking:
  --webhook-url <url>    where to send USSD_VERIFICATION webhooks (gateway) or USSD session requests
                         (Africa's Talking: your USSD callback)

Gateway only:
  --webhook-secret <s>   signing secret, whsec_<base64> (or VERIKIT_WEBHOOK_SECRET; default: generated)
  --max-attempts <n>     wrong codes allowed per phone verification, 1 to 100 (or VERIKIT_MAX_ATTEMPTS, the
                         engine's setting in the examples; default 5): keep it equal to the engine's maxAttempts`;

const options = {
  port: { type: 'string' },
  'api-key': { type: 'string' },
  'webhook-url': { type: 'string' },
  'webhook-secret': { type: 'string' },
  'max-attempts': { type: 'string' },
  latency: { type: 'string' },
  slow: { type: 'string' },
  provider: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The flag each option of a fake comes from, for error messages. */
const flagOfField: Readonly<Record<string, string>> = {
  port: '--port',
  apiKey: '--api-key',
  authToken: '--api-key',
  latencyMs: '--latency',
  slowMs: '--slow',
  webhookUrl: '--webhook-url',
  webhookSecret: '--webhook-secret',
  maxAttempts: '--max-attempts',
};

/**
 * `--port -1` is the flag and its value, not two flags: every flag that takes a value is joined to the
 * token after it (`--port=-1`), so a value that starts with `-` reaches the flag's own check.
 */
function joinValues(args: readonly string[]): string[] {
  const joined: string[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index]!;
    const name = arg.startsWith('--') && !arg.includes('=') ? arg.slice(2) : undefined;
    const takesValue =
      name !== undefined && Object.hasOwn(options, name) && options[name as keyof typeof options].type === 'string';
    if (takesValue && index + 1 < args.length) {
      joined.push(`${arg}=${args[index + 1]}`);
      index += 1;
    } else joined.push(arg);
  }
  return joined;
}

/** A flag's whole number of 0 or more; the refusal says which of the two it is not. */
const integer = (flag: string, value: string | undefined): number | undefined => {
  if (value === undefined) return undefined;
  const refuse = (message: string) => {
    throw new InvalidInputError([{ field: flag, message }]);
  };
  if (!/^-?\d+$/.test(value)) refuse('must be a whole number');
  if (value.startsWith('-')) refuse('must be 0 or more');
  if (value.length > 6) refuse('must be at most 999999');
  return Number(value);
};

/**
 * `verikit sandbox [--provider gateway|termii|twilio|africastalking]`: starts that provider's fake from the one table of
 * fakes, prints a `.env` block for the provider's env-only factory and every request it answers (and, for the
 * gateway, every webhook attempt). Never prints a key or secret that was given; a generated webhook secret
 * is printed, as the receiver needs it. Resolves with the running fake, or with an exit code.
 */
export async function runSandboxCommand(args: readonly string[], io: CliIo): Promise<FakeRun | number> {
  let parsed: ReturnType<
    typeof parseArgs<{ options: typeof options; strict: true; allowPositionals: false }>
  >['values'];
  try {
    parsed = parseArgs({ args: joinValues(args), strict: true, allowPositionals: false, options }).values;
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
  if (!Object.hasOwn(fakes, provider)) {
    io.err(
      `verikit sandbox: --provider must be ${Object.keys(fakes)
        .join(', ')
        .replace(/, (\w+)$/, ' or $1')}`,
    );
    return 2;
  }
  const gateway = provider === 'gateway';
  if (!gateway) {
    const gatewayOnly = [
      '--webhook-secret',
      '--max-attempts',
      ...(provider === 'africastalking' ? [] : ['--webhook-url']),
    ];
    const given = gatewayOnly.filter((flag) => parsed[flag.slice(2) as 'webhook-url'] !== undefined);
    if (given.length > 0) {
      io.err(
        `verikit sandbox: ${given.join(' and ')} ${given.length > 1 ? 'are' : 'is'} for the gateway, not --provider ${provider}`,
      );
      return 2;
    }
  }
  // Where each value came from, so an error names the flag or the variable the person actually set.
  const fromEnvironment = {
    apiKey: gateway && parsed['api-key'] === undefined && io.env['VERIKIT_SANDBOX_API_KEY'] !== undefined,
    webhookSecret: gateway && parsed['webhook-secret'] === undefined && io.env['VERIKIT_WEBHOOK_SECRET'] !== undefined,
    maxAttempts: gateway && parsed['max-attempts'] === undefined && io.env['VERIKIT_MAX_ATTEMPTS'] !== undefined,
  };
  let port: number | undefined;
  let flags: FakeFlags;
  try {
    port = parsePort(parsed.port);
    const latencyMs = integer('--latency', parsed.latency);
    const slowMs = integer('--slow', parsed.slow);
    const apiKey = parsed['api-key'] ?? (gateway ? io.env['VERIKIT_SANDBOX_API_KEY'] : undefined);
    const maxAttempts = integer(
      fromEnvironment.maxAttempts ? 'VERIKIT_MAX_ATTEMPTS' : '--max-attempts',
      parsed['max-attempts'] ?? (gateway ? io.env['VERIKIT_MAX_ATTEMPTS'] : undefined),
    );
    // Without one, the fake generates a secret and the .env block prints it.
    const webhookSecret = parsed['webhook-secret'] ?? (gateway ? io.env['VERIKIT_WEBHOOK_SECRET'] : undefined);
    flags = {
      ...(port === undefined ? {} : { port }),
      ...(latencyMs === undefined ? {} : { latencyMs }),
      ...(slowMs === undefined ? {} : { slowMs }),
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(gateway && webhookSecret !== undefined ? { webhookSecret } : {}),
      ...(parsed['webhook-url'] === undefined ? {} : { webhookUrl: parsed['webhook-url'] }),
      ...(maxAttempts === undefined ? {} : { maxAttempts }),
    };
  } catch (error) {
    io.err(`verikit sandbox: ${InvalidInputError.isInstance(error) ? error.message : 'bad arguments'}`);
    return 2;
  }
  let started: Awaited<ReturnType<(typeof fakes)[FakeProvider]>>;
  try {
    started = await fakes[provider as FakeProvider](flags, io);
  } catch (error) {
    if (InvalidInputError.isInstance(error)) {
      const field = error.field ?? 'input';
      const flag =
        field === 'apiKey' && fromEnvironment.apiKey
          ? 'VERIKIT_SANDBOX_API_KEY'
          : field === 'webhookSecret' && fromEnvironment.webhookSecret
            ? 'VERIKIT_WEBHOOK_SECRET'
            : field === 'maxAttempts' && fromEnvironment.maxAttempts
              ? 'VERIKIT_MAX_ATTEMPTS'
              : (flagOfField[field] ?? `--${field}`);
      io.err(`verikit sandbox: ${flag} ${error.issues[0]?.message ?? 'is invalid'}`);
      return 2;
    }
    io.err(`verikit sandbox: ${startFailureMessage(error, port)}`);
    return 1;
  }
  const { run, env, notes, inbox } = started;
  io.out(`verikit sandbox (${provider} fake) listening on ${run.fake.url}`);
  if (run.fake.inboxUrl !== undefined) io.out(`inbox: ${run.fake.inboxUrl}  (open it in a browser: ${inbox})`);
  io.out(`# .env for the ${provider} provider: paste it, and its factory needs no settings`);
  for (const line of env) io.out(line);
  for (const line of notes) io.out(`# ${line}`);
  return run;
}
