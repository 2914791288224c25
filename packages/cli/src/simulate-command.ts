import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { InvalidInputError, VerikitError } from '@verikit/provider';
import {
  compareRouting,
  formatBreakdown,
  formatRoutingComparison,
  formatTable,
  loadScenario,
  runSimulation,
  shippedScenarios,
  shippedScenarioUrl,
  type Channel,
} from '@verikit/simulator';
import type { CliIo } from './cli-io.js';

/** The help text of `verikit simulate`. */
const simulateUsage = `Usage: verikit simulate <scenario-file|name> [options]

Runs a carrier simulation (docs/simulator.md): the scenario's people and bots start phone flows on the real engine,
whose providers are the real provider packages against their fakes, with a carrier layer deciding what each message
becomes. Prints verified share, time to verify, sends and cost per verified person, attacker sends and double sends.

Shipped scenarios: ${shippedScenarios.join(', ')} (or "all")

Options:
  --seed <n>          the seed (default: the scenario's)
  --flows <n>         starts in the run (default: the scenario's)
  --channels <list>   the plan to test instead of the scenario's, e.g. sms,whatsapp,voice
  --escalate-after <s>  the plan sends its next channel by itself after s seconds without a code (15 to 900);
                      0: a plan that does not escalate (default: the scenario's)
  --dnd-lookup        the plan asks the provider first which channels reach each number (Termii's DND search) and
                      leaves the others out (default: the scenario's plan.dndLookup)
  --short             200 flows: a quick look (CI runs it)
  --http              send provider requests over loopback HTTP to the fakes (default: in process)
  --detail            per operator, provider and channel counts after the table
  --compare-routing   run every fixed order of the providers and a learning router on the same people, against an
                      oracle (docs/routing.md): verified share, regret, when it left a degrading provider, double sends
                      (and cost per verified person, when the scenario has a rate card)
  --objective <name>  with --compare-routing, what the learning router maximises: verified (the share of people
                      verified, default) or cost (verified people per unit of money, by the scenario's rate card)
  -h, --help          this help`;

const options = {
  seed: { type: 'string' },
  flows: { type: 'string' },
  channels: { type: 'string' },
  'escalate-after': { type: 'string' },
  'dnd-lookup': { type: 'boolean' },
  short: { type: 'boolean' },
  http: { type: 'boolean' },
  detail: { type: 'boolean' },
  'compare-routing': { type: 'boolean' },
  objective: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Flows in a `--short` run. */
const shortFlows = 200;

const whole = (flag: string, value: string | undefined, max: number): number | undefined => {
  if (value === undefined) return undefined;
  if (!/^\d{1,10}$/.test(value) || Number(value) > max)
    throw new InvalidInputError([{ field: flag, message: `must be a whole number from 0 to ${max}` }]);
  return Number(value);
};

function channelsOf(value: string | undefined): Channel[] | undefined {
  if (value === undefined) return undefined;
  const channels = value.split(',');
  if (channels.length > 3 || channels.some((channel) => !['sms', 'voice', 'whatsapp'].includes(channel)))
    throw new InvalidInputError([
      { field: '--channels', message: 'must be up to 3 of sms, voice, whatsapp, comma-separated' },
    ]);
  return channels as Channel[];
}

/** The files a scenario argument names: a shipped scenario's name, `all`, or a path. */
function scenarioFiles(argument: string): (string | URL)[] {
  if (argument === 'all') return shippedScenarios.map((name) => shippedScenarioUrl(name));
  if ((shippedScenarios as readonly string[]).includes(argument))
    return [shippedScenarioUrl(argument as (typeof shippedScenarios)[number])];
  if (!existsSync(argument))
    throw new InvalidInputError([
      { field: 'scenario', message: `is neither a file nor a shipped scenario (${shippedScenarios.join(', ')})` },
    ]);
  return [argument];
}

/** `verikit simulate`: runs the scenarios named and prints their table; 0, or 2 for bad input. */
export async function runSimulateCommand(args: readonly string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<
    typeof parseArgs<{ args: string[]; options: typeof options; allowPositionals: true; strict: true }>
  >;
  try {
    parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (error) {
    io.err(`verikit simulate: ${error instanceof Error ? error.message : String(error)}`);
    io.err(simulateUsage);
    return 2;
  }
  if (parsed.values.help) {
    io.out(simulateUsage);
    return 0;
  }
  if (parsed.positionals.length !== 1) {
    io.err('verikit simulate: name one scenario file or shipped scenario');
    io.err(simulateUsage);
    return 2;
  }
  try {
    const seed = whole('--seed', parsed.values.seed, 4_294_967_295);
    const flows = parsed.values.short ? shortFlows : whole('--flows', parsed.values.flows, 10_000_000);
    if (flows === 0) throw new InvalidInputError([{ field: '--flows', message: 'must be at least 1' }]);
    const channels = channelsOf(parsed.values.channels);
    const escalate = whole('--escalate-after', parsed.values['escalate-after'], 900);
    if (escalate !== undefined && escalate !== 0 && escalate < 15)
      throw new InvalidInputError([{ field: '--escalate-after', message: 'must be 0 or from 15 to 900' }]);
    const objective = parsed.values.objective;
    if (objective !== undefined && objective !== 'verified' && objective !== 'cost')
      throw new InvalidInputError([{ field: '--objective', message: 'must be verified or cost' }]);
    if (objective !== undefined && !parsed.values['compare-routing'])
      throw new InvalidInputError([{ field: '--objective', message: 'is an option of --compare-routing' }]);
    if (parsed.values['compare-routing']) {
      const comparisons = [];
      for (const file of scenarioFiles(parsed.positionals[0]!))
        comparisons.push(
          formatRoutingComparison(
            await compareRouting(await loadScenario(file), {
              ...(seed === undefined ? {} : { seed }),
              ...(flows === undefined ? {} : { flows }),
              ...(objective === undefined ? {} : { objective }),
            }),
          ),
        );
      for (const line of comparisons.join('\n\n').split('\n')) io.out(line);
      return 0;
    }
    const results = [];
    for (const file of scenarioFiles(parsed.positionals[0]!)) {
      const scenario = await loadScenario(file);
      results.push(
        await runSimulation(scenario, {
          ...(seed === undefined ? {} : { seed }),
          ...(flows === undefined ? {} : { flows }),
          ...(channels === undefined ? {} : { channels }),
          ...(escalate === undefined ? {} : { escalateAfterSeconds: escalate === 0 ? false : escalate }),
          ...(parsed.values['dnd-lookup'] ? { dndLookup: true } : {}),
          mode: parsed.values.http ? 'http' : 'fast',
        }),
      );
    }
    const text = [
      formatTable(results),
      ...(parsed.values.detail ? results.map((result) => `\n${formatBreakdown(result)}`) : []),
    ];
    for (const line of text.join('\n').split('\n')) io.out(line);
    return 0;
  } catch (error) {
    if (!VerikitError.isInstance(error)) throw error;
    io.err(`verikit simulate: ${error.message}`);
    return 2;
  }
}
