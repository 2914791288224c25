import { describe, expect, it } from 'vitest';
import { loadTraffic, parseTrafficScenario, shippedTrafficUrl } from './load-traffic.js';
import { runReplay } from './run-replay.js';

// Whole runs on a shared machine: generous timeouts, never a limit on speed (that is `pnpm bench replay`).
describe('runReplay', { timeout: 300_000 }, () => {
  it('the pumping traffic (short): each attacked range trips within 50 sends, almost no person refused, same twice', async () => {
    const shipped = await loadTraffic(shippedTrafficUrl('pumping-million'));
    const scenario = parseTrafficScenario({ ...shipped, starts: 100_000 });
    const result = await runReplay(scenario);
    expect(result.attackers.byPrefix).toHaveLength(3);
    for (const range of result.attackers.byPrefix) {
      expect(range.sends).toBeGreaterThan(0);
      expect(range.beforeTrip).toBeLessThanOrEqual(50);
    }
    expect(result.trips.prefix).toBeGreaterThanOrEqual(3);
    expect(result.trips.country).toBe(0);
    expect(result.people.refusedShare).toBeLessThanOrEqual(0.001);
    expect(result.ledger.total).toBe(result.cost.people + result.cost.attackers);
    expect(JSON.stringify(await runReplay(scenario))).toBe(JSON.stringify(result));
    expect(JSON.stringify(await runReplay(scenario, { seed: 2 }))).not.toBe(JSON.stringify(result));
  });

  it('without the tripwire, the same traffic gets the bots more sends', async () => {
    const shipped = await loadTraffic(shippedTrafficUrl('pumping-million'));
    const guard = { ...shipped.guard };
    delete guard.tripwire;
    const open = await runReplay(parseTrafficScenario({ ...shipped, starts: 50_000, guard }));
    const closed = await runReplay(parseTrafficScenario({ ...shipped, starts: 50_000 }));
    expect(closed.attackers.sends).toBeLessThan(open.attackers.sends);
  });
});
