import { describe, expect, it } from 'vitest';
import { loadScenario, shippedScenarioUrl } from './load-scenario.js';
import { runSimulation } from './run-simulation.js';

// Issue 32: with a population of whom 60% can reach the app inbound, at least half of all verifications send nothing
// outbound (inbound-first: a plan whose first step is WhatsApp inbound, then SMS and WhatsApp codes).

describe('the inbound-first scenario', () => {
  it('verifies at least half of its people with no code sent, with no double send, the same for the same seed', async () => {
    const scenario = await loadScenario(shippedScenarioUrl('inbound-first'));
    expect(scenario.people.inbound?.share).toBe(0.6);
    const first = await runSimulation(scenario, { flows: 600 });
    const again = await runSimulation(scenario, { flows: 600 });
    expect(again).toEqual(first);
    console.log(
      `[measured] inbound-first, 600 flows, seed 1: ${first.verifiedWithoutSends} of ${first.verified} verified with no code sent`,
    );
    expect(first.verified).toBeGreaterThan(first.people / 2);
    expect(first.verifiedWithoutSends / first.verified).toBeGreaterThanOrEqual(0.5);
    expect(first.doubleSends).toBe(0);
    // The same world without anyone who can message: every verification needed a code.
    const nobody = await runSimulation(
      { ...scenario, people: { ...scenario.people, inbound: undefined } },
      { flows: 600 },
    );
    expect(nobody.verifiedWithoutSends).toBe(0);
  }, 120_000);
});
