import { createLearningRouter } from '@verikit/provider-utils';
import { describe, expect, it } from 'vitest';
import { compareRouting, formatRoutingComparison } from './routing-comparison.js';
import { loadScenario, parseScenario, shippedScenarioUrl } from './load-scenario.js';
import { deliveryOf } from './carrier.js';
import { runSimulation } from './run-simulation.js';

// Whole runs on a shared machine: generous timeouts, never a limit on speed. The figures of 5,000 flows are in
// docs/routing.md; CI runs short ones.
describe('routing in the simulator', { timeout: 600_000 }, () => {
  it('a learning router run is the same for the same seed, and sends no double', async () => {
    const scenario = await loadScenario(shippedScenarioUrl('routing-drift'));
    const run = () =>
      runSimulation(scenario, { flows: 150, router: (clock) => createLearningRouter({ seed: 5, clock }) });
    const [once, twice] = [await run(), await run()];
    expect(JSON.stringify(twice)).toBe(JSON.stringify(once));
    expect(once.doubleSends).toBe(0);
    expect(once.byProvider.filter((provider) => provider.sends > 0).length).toBeGreaterThan(1);
  });

  it('compares fixed orders, the learning router and the oracle on the same people', async () => {
    const scenario = await loadScenario(shippedScenarioUrl('routing-drift'));
    const comparison = await compareRouting(scenario, { flows: 400 });
    expect(comparison.fixed).toHaveLength(6);
    expect(comparison.people).toBe(400);
    for (const run of [comparison.learning, ...comparison.fixed]) expect(run.doubleSends).toBe(0);
    // The oracle takes the best fixed order per operator and phase: never below the best fixed order.
    expect(comparison.oracle.verified).toBeGreaterThanOrEqual(comparison.fixed[0]!.verified);
    expect(comparison.learning.verified).toBeGreaterThan(comparison.fixed[0]!.verified);
    expect(comparison.regret.points).toBeCloseTo(
      (comparison.oracle.verifiedShare - comparison.learning.verifiedShare) * 100,
      1,
    );
    expect(comparison.degradation).toEqual({ provider: 'termii', fromSecond: 3600 });
    expect(formatRoutingComparison(comparison)).toContain('| learning |');
  });

  it('the routing scenarios run by their path load, each with three providers and one that degrades', async () => {
    for (const name of ['routing-ghana', 'routing-kenya', 'routing-tanzania', 'routing-pakistan']) {
      const scenario = await loadScenario(new URL(`../scenarios/${name}.yaml`, import.meta.url));
      expect(scenario.name).toBe(name);
      expect(scenario.providers).toHaveLength(3);
      expect(scenario.providers.filter((provider) => provider.degrades.length > 0)).toHaveLength(1);
      expect(scenario.operators.length).toBeGreaterThanOrEqual(3);
    }
  });

  it('reads a provider’s own delivery per operator and its degradation windows', () => {
    const scenario = parseScenario({
      name: 'tiny',
      description: 'two providers, one operator, to read delivery per provider and a degradation window',
      flows: 1,
      arrivals: { overSeconds: 10 },
      plan: { channels: ['sms'] },
      providers: [
        { name: 'termii', degrades: [{ from: 5, to: 8, delivery: 0.5, operators: ['MTN'] }] },
        { name: 'twilio' },
      ],
      rates: { currency: 'NGN', cards: [] },
      operators: [
        {
          name: 'MTN',
          prefixes: ['+234803'],
          share: 1,
          channels: { sms: { delivery: 0.9, delay: 1, providers: { termii: { delivery: 0.8 } } } },
        },
      ],
      people: { readAndType: 1, patience: 10 },
    });
    const [mtn] = scenario.operators;
    const [termii, twilio] = scenario.providers;
    expect(deliveryOf(mtn!, 'sms', termii!, 0)).toBe(0.8);
    expect(deliveryOf(mtn!, 'sms', termii!, 6)).toBe(0.4);
    expect(deliveryOf(mtn!, 'sms', termii!, 8)).toBe(0.8);
    expect(deliveryOf(mtn!, 'sms', twilio!, 6)).toBe(0.9);
    expect(() =>
      parseScenario({
        ...scenario,
        providers: [{ name: 'termii', degrades: [{ from: 5, delivery: 0.5, operators: ['Glo'] }] }],
      }),
    ).toThrow('providers.0.degrades.0.operators.0 names no operator of the scenario');
  });
});
