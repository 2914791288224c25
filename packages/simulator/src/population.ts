import { drawNumber } from './phone-numbers.js';
import { chance, drawSeconds, pickWeighted, randomStream, type Random } from './random.js';
import type { Scenario } from './scenario-schema.js';

/** Names of the seeded streams, so that each use draws from its own. */
const streams = Object.freeze({ arrivals: 1, person: 2, carrier: 3, numbers: 4 });

/** One simulated handset and its owner: a person, or an SMS-pumping bot. */
export interface Person {
  /** Its place in the run (0-based). */
  readonly index: number;
  /** Its number, E.164. */
  readonly number: string;
  /** Index of its operator in the scenario (bots: the operator whose prefix matches, else -1). */
  readonly operator: number;
  /** A bot that never verifies. */
  readonly attacker: boolean;
  /** On the operator's Do-Not-Disturb list. */
  readonly dnd: boolean;
  /** Has WhatsApp on the number. */
  readonly whatsapp: boolean;
  /** Has opted out of SMS from the sender. */
  readonly optedOut: boolean;
  /** When it starts, in ms after the run's start. */
  readonly arrivesAt: number;
  /** Its own draws: behaviour (times, typos, choices). */
  readonly random: Random;
  /** The carrier's draws for its messages. */
  readonly carrier: Random;
}

/** Start times of every flow, in ms after the run's start, sorted. */
function arrivalTimes(scenario: Scenario, seed: number, flows: number): number[] {
  const random = randomStream(seed, streams.arrivals);
  const windowMs = scenario.arrivals.overSeconds * 1000;
  const shape = scenario.arrivals.shape ?? [1];
  const slice = windowMs / shape.length;
  const times: number[] = [];
  for (let index = 0; index < flows; index += 1)
    times.push(Math.floor(pickWeighted(random, shape) * slice + random.next() * slice));
  return times.sort((a, b) => a - b);
}

/** The operator whose prefixes hold `number`, or -1. */
function operatorOf(scenario: Scenario, number: string): number {
  return scenario.operators.findIndex((operator) => operator.prefixes.some((prefix) => number.startsWith(prefix)));
}

/** The run's people and bots, in arrival order: the same for the same scenario, seed and flow count. */
export function drawPopulation(scenario: Scenario, seed: number, flows: number): Person[] {
  const times = arrivalTimes(scenario, seed, flows);
  const taken = new Set<string>();
  const shares = scenario.operators.map((operator) => operator.share);
  return times.map((arrivesAt, index) => {
    const random = randomStream(seed, streams.person, index);
    const carrier = randomStream(seed, streams.carrier, index);
    const attacker = scenario.attackers !== undefined && chance(random, scenario.attackers.share);
    let number: string;
    let operator: number;
    if (attacker) {
      const prefixes = scenario.attackers!.prefixes;
      number = drawNumber(random, prefixes[Math.floor(random.next() * prefixes.length)]!, taken);
      operator = operatorOf(scenario, number);
    } else {
      operator = pickWeighted(random, shares);
      const prefixes = scenario.operators[operator]!.prefixes;
      number = drawNumber(random, prefixes[Math.floor(random.next() * prefixes.length)]!, taken);
    }
    taken.add(number);
    const behaviour = operator < 0 ? undefined : scenario.operators[operator]!;
    return {
      index,
      number,
      operator,
      attacker,
      dnd: behaviour !== undefined && chance(random, behaviour.dnd.share),
      whatsapp: behaviour !== undefined && chance(random, behaviour.whatsappPresence),
      optedOut: !attacker && chance(random, scenario.people.optedOut),
      arrivesAt,
      random,
      carrier,
    };
  });
}

/** A duration drawn from a person's own stream, in ms. */
export function drawMs(person: Person, duration: Parameters<typeof drawSeconds>[1]): number {
  return Math.round(drawSeconds(person.random, duration) * 1000);
}

/** A wrong code of the same length: what a typo gives. */
export function typo(code: string, position: number): string {
  const at = position % code.length;
  return `${code.slice(0, at)}${(Number(code[at]) + 1) % 10}${code.slice(at + 1)}`;
}
