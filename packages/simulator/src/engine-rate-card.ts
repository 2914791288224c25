import type { RateCard } from '@verikit/core';
import type { Scenario } from './scenario-schema.js';

/**
 * The scenario's rate card as the engine's send guard reads it (`guard.prices`), so that the engine's cost ledger
 * prices each send as the run bills the fakes' outboxes. Prices per operator have no counterpart in the engine (it
 * knows a number's country, not its operator): a card that names operators gives none, and the run reports no ledger.
 */
function engineRateCard(scenario: Scenario): RateCard | undefined {
  const { currency, cards } = scenario.rates;
  if (!/^[A-Z]{3}$/.test(currency) || cards.length === 0) return undefined;
  if (cards.some((card) => card.operator !== undefined)) return undefined;
  return {
    currency,
    prices: cards.map((card) => ({ provider: card.provider, channel: card.channel, price: card.price })),
  };
}

/** The engine's `guard` option for a run: the scenario's, with the rate card added unless the guard is off. */
export function guardOf(scenario: Scenario): { guard?: never } {
  const given = scenario.engine.guard;
  if (given === false) return { guard: false as never };
  const prices = engineRateCard(scenario);
  if (prices === undefined) return given === undefined ? {} : { guard: given as never };
  return { guard: { ...given, prices } as never };
}
