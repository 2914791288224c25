import { readFile } from 'node:fs/promises';
import { InvalidInputError, parseInput } from '@verikit/provider';
import { parse as parseYaml } from 'yaml';
import { numberLengthOf } from './phone-numbers.js';
import { scenarioSchema, type Scenario } from './scenario-schema.js';

/** The scenarios shipped with the simulator, by name (`verikit simulate baseline`). */
export const shippedScenarios = Object.freeze([
  'baseline',
  'dnd-heavy',
  'slow-sms',
  'whatsapp-first',
  'pumping-attack',
  'provider-outage',
  'routing-drift',
  'inbound-first',
] as const);

/** The file of a shipped scenario. */
export function shippedScenarioUrl(name: (typeof shippedScenarios)[number]): URL {
  return new URL(`../scenarios/${name}.yaml`, import.meta.url);
}

/**
 * Checks a scenario given as data (what a YAML or JSON file holds): an `InvalidInputError` naming the first bad
 * field (`operators.0.channels.sms.delivery must be a number from 0 to 1`), with every issue in `issues`.
 */
export function parseScenario(data: unknown): Scenario {
  const scenario = parseInput(scenarioSchema, data);
  for (const [index, operator] of scenario.operators.entries())
    for (const [at, prefix] of operator.prefixes.entries()) numberLengthOf(prefix, `operators.${index}.prefixes.${at}`);
  for (const [at, prefix] of (scenario.attackers?.prefixes ?? []).entries())
    numberLengthOf(prefix, `attackers.prefixes.${at}`);
  const names = new Set(scenario.providers.map((provider) => provider.name));
  for (const list of ['cards', 'lookups'] as const)
    scenario.rates[list].forEach((rate, index) => {
      if (!names.has(rate.provider))
        throw new InvalidInputError([
          { field: `rates.${list}.${index}.provider`, message: 'names no provider of the scenario' },
        ]);
    });
  const operatorNames = new Set(scenario.operators.map((operator) => operator.name));
  for (const [index, provider] of scenario.providers.entries())
    for (const [at, window] of provider.degrades.entries())
      for (const [which, name] of (window.operators ?? []).entries())
        if (!operatorNames.has(name))
          throw new InvalidInputError([
            {
              field: `providers.${index}.degrades.${at}.operators.${which}`,
              message: 'names no operator of the scenario',
            },
          ]);
  if (scenario.operators.every((operator) => operator.share === 0))
    throw new InvalidInputError([{ field: 'operators', message: 'must give at least one operator a share above 0' }]);
  return scenario;
}

/** Reads a scenario file, YAML or JSON (JSON is YAML), and checks it. A file that is not YAML: an `InvalidInputError` on `file`. */
export async function loadScenario(path: string | URL): Promise<Scenario> {
  const text = await readFile(path, 'utf8');
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (error) {
    const line = (error as { linePos?: { line: number }[] }).linePos?.[0]?.line;
    throw new InvalidInputError([
      { field: 'file', message: `is not YAML or JSON${line === undefined ? '' : ` (line ${line})`}` },
    ]);
  }
  return parseScenario(data);
}
