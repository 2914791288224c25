import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { InvalidInputError, parseInput, VerikitError } from '@verikit/provider';
import {
  formatReplay,
  loadTraffic,
  runReplay,
  shippedTraffic,
  shippedTrafficUrl,
  trafficScenarioSchema,
} from '@verikit/simulator';
import type { CliIo } from './cli-io.js';

/** The help text of `verikit replay`. */
const replayUsage = `Usage: verikit replay <traffic-file|name> [options]

Replays traffic against the engine's send guard (counts, budget, conversion tripwire, cost ledger) with a guard
configuration, on the in-memory store and a virtual clock (docs/abuse.md, "Replay an attack"). Prints attacker
sends, real people refused, money spent, and starts replayed per CPU-second.

Shipped traffic: ${shippedTraffic.join(', ')}

Options:
  --seed <n>       the seed (default: the file's)
  --starts <n>     starts to replay (default: the file's)
  --guard <file>   a JSON file of your guard options (createVerikit({ guard })), instead of the file's
  --short          20,000 starts: a quick look (CI runs it)
  -h, --help       this help`;

const options = {
  seed: { type: 'string' },
  starts: { type: 'string' },
  guard: { type: 'string' },
  short: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const whole = (flag: string, value: string | undefined, min: number, max: number): number | undefined => {
  if (value === undefined) return undefined;
  if (!/^\d{1,10}$/.test(value) || Number(value) < min || Number(value) > max)
    throw new InvalidInputError([{ field: flag, message: `must be a whole number from ${min} to ${max}` }]);
  return Number(value);
};

function guardFile(path: string | undefined): Record<string, unknown> | undefined {
  if (path === undefined) return undefined;
  if (!existsSync(path)) throw new InvalidInputError([{ field: '--guard', message: 'is not a file' }]);
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch {
    throw new InvalidInputError([{ field: '--guard', message: 'must be a JSON file of the guard options' }]);
  }
}

/** `verikit replay`: replays the traffic named and prints its figures; 0, or 2 for bad input. */
export async function runReplayCommand(args: readonly string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<
    typeof parseArgs<{ args: string[]; options: typeof options; allowPositionals: true; strict: true }>
  >;
  try {
    parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (error) {
    io.err(`verikit replay: ${error instanceof Error ? error.message : String(error)}`);
    io.err(replayUsage);
    return 2;
  }
  if (parsed.values.help) {
    io.out(replayUsage);
    return 0;
  }
  if (parsed.positionals.length !== 1) {
    io.err('verikit replay: name one traffic file or shipped traffic');
    io.err(replayUsage);
    return 2;
  }
  try {
    const name = parsed.positionals[0]!;
    const shipped = (shippedTraffic as readonly string[]).includes(name);
    if (!shipped && !existsSync(name))
      throw new InvalidInputError([
        { field: 'traffic', message: `is neither a file nor shipped traffic (${shippedTraffic.join(', ')})` },
      ]);
    const loaded = await loadTraffic(shipped ? shippedTrafficUrl(name as (typeof shippedTraffic)[number]) : name);
    const starts = parsed.values.short ? 20_000 : whole('--starts', parsed.values.starts, 1, 100_000_000);
    const guard = guardFile(parsed.values.guard);
    const scenario = parseInput(trafficScenarioSchema, {
      ...loaded,
      ...(starts === undefined ? {} : { starts }),
      ...(guard === undefined ? {} : { guard }),
    });
    const seed = whole('--seed', parsed.values.seed, 0, 4_294_967_295);
    const cpu = process.cpuUsage();
    const result = await runReplay(scenario, seed === undefined ? {} : { seed });
    const used = process.cpuUsage(cpu);
    for (const line of formatReplay(result).split('\n')) io.out(line);
    const seconds = (used.user + used.system) / 1e6;
    io.err(`replayed ${(scenario.starts / Math.max(seconds, 1e-6)).toFixed(0)} starts per CPU-second`);
    return 0;
  } catch (error) {
    if (!VerikitError.isInstance(error)) throw error;
    io.err(`verikit replay: ${error.message}`);
    return 2;
  }
}
