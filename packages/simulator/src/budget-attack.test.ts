import { describe, expect, it } from 'vitest';
import { loadScenario, parseScenario, runSimulation, shippedScenarioUrl } from './index.js';

// Whole runs on a shared machine: generous timeouts, never a limit on speed.
describe('a budget in money against the pumping scenario', { timeout: 120_000 }, () => {
  it("stops the attack within one hour's budget, with every count limit off", async () => {
    const shipped = await loadScenario(shippedScenarioUrl('pumping-attack'));
    const budget = 200;
    const scenario = parseScenario({
      ...shipped,
      engine: { guard: { perClient: false, perPrefix: false, global: false, budget: { perHour: budget } } },
    });
    const open = parseScenario({
      ...shipped,
      engine: { guard: { perClient: false, perPrefix: false, global: false } },
    });
    const [capped, uncapped] = [
      await runSimulation(scenario, { flows: 300 }),
      await runSimulation(open, { flows: 300 }),
    ];
    // The run's hour of arrivals, all of it inside one budget hour: what went out cost at most the budget.
    expect(uncapped.costLedger!.total).toBeGreaterThan(budget);
    expect(capped.costLedger!.total).toBeLessThanOrEqual(budget);
    expect(capped.cost.people + capped.cost.attackers).toBe(capped.costLedger!.total);
    expect(capped.sends.attackers).toBeLessThan(uncapped.sends.attackers);
  });
});
