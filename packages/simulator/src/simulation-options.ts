import type { FailoverRouter } from '@verikit/provider-utils';
import type { PlanStep, ProviderName } from './scenario-schema.js';
import type { TransportMode } from './sim-providers.js';

/** Options of {@link runSimulation}: what the command line may change without editing the scenario. */
export interface SimulationOptions {
  /** Replaces the scenario's seed. */
  readonly seed?: number;
  /** Replaces the scenario's flow count (arrivals keep their window: fewer flows, a lighter load). */
  readonly flows?: number;
  /** Replaces the scenario's plan: the design under test, run in the same world. */
  readonly channels?: readonly PlanStep[];
  /** Replaces the plan's `escalateAfterSeconds`; `false`: a plan that does not escalate. */
  readonly escalateAfterSeconds?: number | false;
  /** Replaces the plan's `dndLookup`: each flow of several channels asks its provider first what reaches the number. */
  readonly dndLookup?: boolean;
  /** `fast` (default): provider requests go to the fakes' handlers in process. `http`: over loopback. */
  readonly mode?: TransportMode;
  /**
   * Routes each new flow among the scenario's providers (`withFailover(members, { router })`), made with the run's
   * virtual clock: a learning router, or an oracle (docs/routing.md). Default: none, the scenario's fixed order.
   */
  readonly router?: (clock: { now(): number }) => FailoverRouter;
  /** Told, once the run ended, each real person's outcome, in the order they started (for comparisons of routing). */
  readonly onPerson?: (outcome: PersonOutcome) => void;
}

/** One real person's run, as {@link SimulationOptions.onPerson} is told it. */
export interface PersonOutcome {
  /** The operator's name. */
  readonly operator: string;
  /** Seconds after the run's start when the person first started. */
  readonly startedAtSecond: number;
  /** The provider whose code reached the fakes' outboxes first for this person; undefined: none was sent. */
  readonly firstProvider: ProviderName | undefined;
  /** The person's flow ended verified. */
  readonly verified: boolean;
}
