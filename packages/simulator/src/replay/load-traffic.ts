import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { parseInput } from '@verikit/provider';
import { trafficScenarioSchema, type TrafficScenario } from './traffic-scenario.js';

/** The traffic scenarios that ship in `traffic/`. */
export const shippedTraffic = ['pumping-million'] as const;

/** The address of a shipped traffic scenario. */
export function shippedTrafficUrl(name: (typeof shippedTraffic)[number]): URL {
  return new URL(`../../traffic/${name}.yaml`, import.meta.url);
}

/** Reads a traffic scenario (YAML or JSON) and checks it. */
export async function loadTraffic(url: URL | string): Promise<TrafficScenario> {
  return parseTrafficScenario(parse(await readFile(url, 'utf8')));
}

/** Checks a traffic scenario; an `InvalidInputError` names the field. */
export function parseTrafficScenario(value: unknown): TrafficScenario {
  return parseInput(trafficScenarioSchema, value);
}
