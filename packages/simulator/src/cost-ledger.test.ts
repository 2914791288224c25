import { describe, expect, it } from 'vitest';
import { loadScenario, runSimulation, shippedScenarios, shippedScenarioUrl } from './index.js';

// Whole runs on a shared machine: generous timeouts, never a limit on speed.
describe("the engine's cost ledger", { timeout: 300_000 }, () => {
  it('equals, to the unit, what the run billed from the fakes’ outboxes, in every shipped scenario', async () => {
    for (const name of shippedScenarios) {
      const result = await runSimulation(await loadScenario(shippedScenarioUrl(name)), { flows: 200 });
      const ledger = result.costLedger;
      expect(ledger, name).toBeDefined();
      const billed = result.cost.people + result.cost.attackers;
      expect({ name, sends: ledger!.sends, total: ledger!.total }).toEqual({
        name,
        sends: result.sends.people + result.sends.attackers,
        total: billed,
      });
      expect(billed, name).toBeGreaterThan(0);
      // Per provider and per channel too, not only in sum.
      for (const provider of result.byProvider) {
        const lines = ledger!.lines.filter((line) => line.provider === provider.name);
        expect(
          lines.reduce((sum, line) => sum + line.sends, 0),
          `${name} ${provider.name}`,
        ).toBe(provider.sends);
      }
      for (const channel of result.byChannel) {
        const lines = ledger!.lines.filter((line) => line.channel === channel.name);
        expect(
          lines.reduce((sum, line) => sum + line.sends, 0),
          `${name} ${channel.name}`,
        ).toBe(channel.sends);
      }
      expect(ledger!.lines.every((line) => line.unpriced === 0 && line.country === 'NG')).toBe(true);
    }
  });
});
