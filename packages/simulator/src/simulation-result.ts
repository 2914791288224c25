import type { CostReport } from '@verikit/core';
/** Code messages and their cost, for one provider or channel. */
export interface SendCounts {
  /** The provider or channel. */
  readonly name: string;
  /** Code messages the fakes handed on. */
  readonly sends: number;
  /** What they cost on the rate card. */
  readonly cost: number;
}

/** One operator's people, verified people, and code messages to its people with their cost. */
export interface OperatorCounts extends SendCounts {
  /** Real people whose number is on this operator. */
  readonly people: number;
  /** Of them, verified. */
  readonly verified: number;
}

/** What one run measured: counts straight from the run, and the figures the table prints. */
export interface SimulationResult {
  /** The scenario's name. */
  readonly scenario: string;
  /** The seed used. */
  readonly seed: number;
  /** Starts in the run (people and bots). */
  readonly flows: number;
  /** How provider requests reached the fakes. */
  readonly mode: 'fast' | 'http';
  /** Real people who started (each one number). */
  readonly people: number;
  /** Bots that started. */
  readonly attackers: number;
  /** People whose flow ended verified. */
  readonly verified: number;
  /** People verified within `withinSeconds` of their first start. */
  readonly verifiedWithin: number;
  /** The window of `verifiedWithin`, in seconds. */
  readonly withinSeconds: number;
  /** People whose first start the engine refused (send guard, capability, provider down). */
  readonly refused: number;
  /** People who gave up waiting. */
  readonly gaveUp: number;
  /** Seconds from first start to verified: the 50th and 95th percentiles (0 when nobody verified). */
  readonly timeToVerify: {
    /** The median, in seconds. */
    readonly p50: number;
    /** The 95th percentile, in seconds. */
    readonly p95: number;
  };
  /** Code messages the fakes handed on, to people and to bots (counted from the fakes' outboxes). */
  readonly sends: {
    /** To real people. */
    readonly people: number;
    /** To bots. */
    readonly attackers: number;
  };
  /** The money those messages cost on the scenario's rate card. */
  readonly cost: {
    /** Of the messages to real people. */
    readonly people: number;
    /** Of the messages to bots. */
    readonly attackers: number;
    /** The rate card's currency. */
    readonly currency: string;
  };
  /** Codes beyond the first after one step (a start, a resend asked for, a receipt the carrier sent): should be 0. */
  readonly doubleSends: number;
  /** People verified to whom no code message was sent: a plan's inbound step proved their number. */
  readonly verifiedWithoutSends: number;
  /** Receipts the carrier layer handed to the engine (`verikit.receive`). */
  readonly receipts: number;
  /**
   * Number lookups the providers answered (`plan.dndLookup`) and what they cost on the rate card's `lookups` (already
   * in `cost`): people's and bots' alike.
   */
  readonly lookups: {
    /** Lookups answered. */
    readonly count: number;
    /** What they cost, in the rate card's currency. */
    readonly cost: number;
  };
  /** Per operator: people, verified, code messages to people and what they cost. */
  readonly byOperator: readonly OperatorCounts[];
  /** Per provider: code messages it handed on (people and bots) and what they cost. */
  readonly byProvider: readonly SendCounts[];
  /** Per channel (`sms`, `whatsapp`, `voice`): code messages (people and bots) and what they cost. */
  readonly byChannel: readonly SendCounts[];
  /**
   * The engine's own cost ledger (`verikit.costs()`), priced on the scenario's rate card as each send went out:
   * it should agree, to the unit, with what the run billed from the fakes' outboxes. Undefined when the scenario
   * turns the guard off or prices per operator.
   */
  readonly costLedger: CostReport | undefined;
}

/** The figures a table shows, derived from a result. */
export interface SimulationFigures {
  /** Verified people over people who started. */
  readonly verifiedShare: number;
  /** Verified within the window, over people who started. */
  readonly verifiedWithinShare: number;
  /** Code messages to people over verified people (Infinity when nobody verified). */
  readonly sendsPerVerified: number;
  /** All money spent (bots' messages included: the team pays for them too) over verified people. */
  readonly costPerVerified: number;
}

/** The table's figures of a result. */
export function figuresOf(result: SimulationResult): SimulationFigures {
  const per = (value: number) => (result.verified === 0 ? Number.POSITIVE_INFINITY : value / result.verified);
  return {
    verifiedShare: result.people === 0 ? 0 : result.verified / result.people,
    verifiedWithinShare: result.people === 0 ? 0 : result.verifiedWithin / result.people,
    sendsPerVerified: per(result.sends.people),
    costPerVerified: per(result.cost.people + result.cost.attackers),
  };
}
