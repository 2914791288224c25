/**
 * The verikit carrier simulator: seeded populations of people and SMS-pumping bots start phone flows on the real
 * engine, whose providers are the real provider packages against their fakes, with a carrier layer between each
 * fake and the handset. Scenarios are data files (docs/simulator.md).
 *
 * @module
 */
export { runSimulation } from './run-simulation.js';
export type { SimulationOptions } from './simulation-options.js';
export { loadScenario, parseScenario, shippedScenarios, shippedScenarioUrl } from './load-scenario.js';
export { formatTable, formatBreakdown } from './format-table.js';
export {
  figuresOf,
  type SimulationResult,
  type SimulationFigures,
  type SendCounts,
  type OperatorCounts,
} from './simulation-result.js';
/** @public The scenario format as a zod schema, for tools that write or check scenarios (an editor, a generator). */
export {
  scenarioSchema,
  type Scenario,
  type ScenarioInput,
  type ScenarioOperator,
  type ScenarioProvider,
  type Channel,
  type PlanStep,
  type ProviderName,
} from './scenario-schema.js';
export { receiptsToday } from './sim-providers.js';
export type { TransportMode } from './sim-providers.js';
export {
  compareRouting,
  formatRoutingComparison,
  type RoutingComparison,
  type RoutingComparisonOptions,
  type RoutingRun,
} from './routing-comparison.js';
export type { PersonOutcome } from './simulation-options.js';
export { runReplay, type ReplayResult } from './replay/run-replay.js';
export { trafficScenarioSchema, type TrafficScenario } from './replay/traffic-scenario.js';
export { loadTraffic, shippedTraffic, shippedTrafficUrl } from './replay/load-traffic.js';
export { formatReplay } from './replay/format-replay.js';
