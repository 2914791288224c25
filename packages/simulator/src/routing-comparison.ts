import { createLearningRouter, type LearningRouterOptions } from '@verikit/provider-utils';
import { runSimulation } from './run-simulation.js';
import type { PersonOutcome } from './simulation-options.js';
import type { ProviderName, Scenario } from './scenario-schema.js';

/** Options of {@link compareRouting}. */
export interface RoutingComparisonOptions {
  /** Replaces the scenario's seed (the people's and the router's). */
  readonly seed?: number;
  /** Replaces the scenario's flow count. */
  readonly flows?: number;
  /** The learning router's options besides its seed and clock. Default: its defaults (docs/routing.md). */
  readonly router?: Omit<LearningRouterOptions, 'seed' | 'clock'>;
  /**
   * What the learning router maximises: `verified` (its default), or `cost`, verified people per unit of money with
   * the price of one code from the scenario's rate card (the card without an operator; else the mean of the
   * provider's and channel's cards per operator; a provider not on the card is unpriced). Overrides `router.objective`.
   */
  readonly objective?: 'verified' | 'cost';
}

/** One design's run in a comparison. */
export interface RoutingRun {
  /** `learning`, or the fixed order (`twilio, termii, gateway`). */
  readonly design: string;
  /** People verified. */
  readonly verified: number;
  /** People verified over people. */
  readonly verifiedShare: number;
  /** Codes beyond the first after one step (should be 0). */
  readonly doubleSends: number;
  /**
   * The money of every code sent to people (resends included, at the rate card's prices) over people verified, in
   * the scenario's currency. Undefined: the scenario has no rate card, or no one was verified.
   */
  readonly costPerVerified?: number;
}

/** What {@link compareRouting} measured. */
export interface RoutingComparison {
  /** The scenario's name. */
  readonly scenario: string;
  /** The seed of every run. */
  readonly seed: number;
  /** What the learning router maximised. */
  readonly objective: 'verified' | 'cost';
  /** The rate card's currency, when the scenario has a rate card. */
  readonly currency?: string;
  /** Flows of every run. */
  readonly flows: number;
  /** Real people in every run (the same people in each). */
  readonly people: number;
  /** Every fixed order of the scenario's providers, best first. */
  readonly fixed: readonly RoutingRun[];
  /** The learning router's run. */
  readonly learning: RoutingRun;
  /**
   * The oracle: for every operator and every phase of the run (the stretches between the scenario's degradation
   * windows' edges), the people verified by the fixed order that verified the most of them there. It knows the true
   * rates because it measured them, on the same people.
   */
  readonly oracle: {
    /** People verified. */
    readonly verified: number;
    /** People verified over people. */
    readonly verifiedShare: number;
  };
  /** The learning router's verified share minus the best fixed order's, in points. */
  readonly gainPoints: number;
  /** The oracle's verified share minus the learning router's: in points, and as a share of the oracle's verified. */
  readonly regret: {
    /** In points of verified share. */
    readonly points: number;
    /** As a share of the oracle's verified people (0.012: 1.2%). */
    readonly relative: number;
  };
  /**
   * For the first degradation window: people started from its beginning until the learning router sent at most 10%
   * of 100 consecutive people (on the operators it hurt, where another provider became best) to the degrading
   * provider. Undefined: no degradation in the scenario; `null`: it never did within the run.
   */
  readonly movedOffAfter: number | null | undefined;
  /** The degrading provider and the time it began, when there is one. */
  readonly degradation?: {
    /** The provider that degrades. */
    readonly provider: ProviderName;
    /** Seconds after the run's start when it begins. */
    readonly fromSecond: number;
  };
}

/** Every order of `items`. */
function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, index) =>
    permutations([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [item, ...rest]),
  );
}

/** Where a second of the run falls between the degradation windows' edges: 0 before the first edge, and so on. */
function phaseOf(edges: readonly number[], second: number): number {
  return edges.filter((edge) => second >= edge).length;
}

/**
 * Runs a scenario once per fixed order of its providers and once with a learning router (seeded by the run's seed,
 * on the run's virtual clock), on the same people, and compares them with an oracle that knows, per operator and
 * phase, which fixed order verifies most. Deterministic for a scenario, seed and flow count. docs/routing.md.
 */
export async function compareRouting(
  scenario: Scenario,
  options: RoutingComparisonOptions = {},
): Promise<RoutingComparison> {
  const seed = options.seed ?? scenario.seed;
  const flows = options.flows ?? scenario.flows;
  const edges = [
    ...new Set(
      scenario.providers.flatMap((provider) =>
        provider.degrades.flatMap((window) => (window.to === undefined ? [window.from] : [window.from, window.to])),
      ),
    ),
  ].sort((a, b) => a - b);
  // The operators' prefixes are public (a numbering plan): the router is given them, as an app would be.
  const operators = Object.fromEntries(scenario.operators.map((operator) => [operator.name, operator.prefixes]));
  const objective = options.objective ?? 'verified';
  const priced = scenario.rates.cards.length > 0;
  /** The price of one code by `member` on `channel`, from the rate card (the router does not know the operator). */
  const price = (member: string, channel: string) => {
    const cards = scenario.rates.cards.filter((card) => card.provider === member && card.channel === channel);
    const general = cards.find((card) => card.operator === undefined);
    if (general !== undefined) return general.price;
    return cards.length === 0 ? undefined : cards.reduce((sum, card) => sum + card.price, 0) / cards.length;
  };
  const routerOptions: Omit<LearningRouterOptions, 'seed' | 'clock'> = {
    operators,
    ...options.router,
    ...(objective === 'cost'
      ? { objective: { price: (member, channel) => price(member, channel) ?? Number.NaN } }
      : {}),
  };
  const run = async (design: string, world: Scenario, router?: boolean) => {
    const people: PersonOutcome[] = [];
    const result = await runSimulation(world, {
      seed,
      flows,
      onPerson: (person) => people.push(person),
      ...(router
        ? { router: (clock: { now(): number }) => createLearningRouter({ ...routerOptions, seed, clock }) }
        : {}),
    });
    const run: RoutingRun = {
      design,
      verified: result.verified,
      verifiedShare: result.people === 0 ? 0 : result.verified / result.people,
      doubleSends: result.doubleSends,
      ...(priced && result.verified > 0 ? { costPerVerified: result.cost.people / result.verified } : {}),
    };
    return { run, people, total: result.people };
  };
  const fixed = [];
  for (const order of permutations(scenario.providers))
    fixed.push(await run(order.map((provider) => provider.name).join(', '), { ...scenario, providers: order }));
  const learning = await run('learning', scenario, true);
  const people = learning.total;

  // The oracle: per operator and phase, the best fixed order's verified people there.
  const cells = new Map<string, Map<string, number>>();
  for (const each of fixed)
    for (const person of each.people) {
      const cell = `${person.operator}\0${phaseOf(edges, person.startedAtSecond)}`;
      const byDesign = cells.get(cell) ?? new Map<string, number>();
      cells.set(cell, byDesign);
      byDesign.set(each.run.design, (byDesign.get(each.run.design) ?? 0) + (person.verified ? 1 : 0));
    }
  let oracleVerified = 0;
  const bestFirst = new Map<string, string>();
  for (const [cell, byDesign] of cells) {
    const [design, verified] = [...byDesign].reduce((best, next) => (next[1] > best[1] ? next : best));
    oracleVerified += verified;
    bestFirst.set(cell, design.split(', ')[0]!);
  }
  const oracleShare = people === 0 ? 0 : oracleVerified / people;
  const sortedFixed = fixed.map((each) => each.run).sort((a, b) => b.verifiedShare - a.verifiedShare);

  // Moving off the degrading provider.
  const degrading = scenario.providers.find((provider) => provider.degrades.length > 0);
  let movedOffAfter: number | null | undefined;
  let degradation: RoutingComparison['degradation'];
  if (degrading !== undefined) {
    const window = degrading.degrades[0]!;
    degradation = { provider: degrading.name, fromSecond: window.from };
    const phase = phaseOf(edges, window.from);
    const hurt = (operator: string) =>
      (window.operators === undefined || window.operators.includes(operator)) &&
      bestFirst.get(`${operator}\0${phase}`) !== degrading.name;
    const after = learning.people.filter((person) => person.startedAtSecond >= window.from);
    const watched = after.flatMap((person, index) => (hurt(person.operator) ? [{ person, index }] : []));
    movedOffAfter = null;
    for (let start = 0; start + 100 <= watched.length; start += 1) {
      const slice = watched.slice(start, start + 100);
      if (slice.filter((each) => each.person.firstProvider === degrading.name).length <= 10) {
        movedOffAfter = slice[99]!.index + 1;
        break;
      }
    }
  }
  const points = (value: number) => Math.round(value * 10_000) / 100;
  return {
    scenario: scenario.name,
    seed,
    objective,
    ...(priced ? { currency: scenario.rates.currency } : {}),
    flows,
    people,
    fixed: sortedFixed,
    learning: learning.run,
    oracle: { verified: oracleVerified, verifiedShare: oracleShare },
    gainPoints: points(learning.run.verifiedShare - sortedFixed[0]!.verifiedShare),
    regret: {
      points: points(oracleShare - learning.run.verifiedShare),
      relative: oracleVerified === 0 ? 0 : (oracleVerified - learning.run.verified) / oracleVerified,
    },
    movedOffAfter,
    ...(degradation === undefined ? {} : { degradation }),
  };
}

/** A comparison as a table and a few lines of text. */
export function formatRoutingComparison(comparison: RoutingComparison): string {
  const percent = (share: number) => `${(share * 100).toFixed(1)}%`;
  const currency = comparison.currency;
  const cost = (run: RoutingRun) =>
    currency === undefined ? '' : ` ${run.costPerVerified === undefined ? '-' : run.costPerVerified.toFixed(2)} |`;
  const learning = comparison.objective === 'cost' ? 'learning (objective: cost)' : 'learning';
  const lines = [
    `${comparison.scenario}: seed ${comparison.seed}, ${comparison.flows} flows, ${comparison.people} people`,
    '',
    `| design | verified |${currency === undefined ? '' : ` ${currency} per verified person |`} double sends |`,
    `|---|---|${currency === undefined ? '' : '---|'}---|`,
    ...[comparison.learning, ...comparison.fixed].map(
      (run) =>
        `| ${run === comparison.learning ? learning : run.design} | ${percent(run.verifiedShare)} |${cost(run)} ${run.doubleSends} |`,
    ),
    `| oracle (best fixed order per operator and phase) | ${percent(comparison.oracle.verifiedShare)} |${currency === undefined ? '' : ' |'} |`,
    '',
    `gain over the best fixed order: ${comparison.gainPoints.toFixed(2)} points`,
    `regret against the oracle: ${comparison.regret.points.toFixed(2)} points (${(comparison.regret.relative * 100).toFixed(2)}% of the oracle's verified)`,
  ];
  if (comparison.degradation !== undefined)
    lines.push(
      `moved off ${comparison.degradation.provider} (degrading from ${comparison.degradation.fromSecond} s): ${
        comparison.movedOffAfter === null ? 'not within the run' : `after ${comparison.movedOffAfter} flows`
      }`,
    );
  return lines.join('\n');
}
