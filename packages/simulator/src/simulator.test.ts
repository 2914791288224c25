import { InvalidInputError } from '@verikit/provider';
import { describe, expect, it } from 'vitest';
import {
  figuresOf,
  formatTable,
  loadScenario,
  parseScenario,
  receiptsToday,
  runSimulation,
  shippedScenarios,
  shippedScenarioUrl,
} from './index.js';
import { kenyaScenario } from './simulator.fixtures.js';

// Whole runs on a shared machine: generous timeouts, never a limit on speed (that is `pnpm bench simulator`).
describe('runSimulation', { timeout: 120_000 }, () => {
  it('gives the same table, byte for byte, for the same scenario and seed', async () => {
    const scenario = await loadScenario(shippedScenarioUrl('slow-sms'));
    const first = await runSimulation(scenario, { flows: 100 });
    const second = await runSimulation(scenario, { flows: 100 });
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
    expect(formatTable([second])).toBe(formatTable([first]));
    const other = await runSimulation(scenario, { flows: 100, seed: 2 });
    expect(JSON.stringify(other)).not.toBe(JSON.stringify(first));
    // With an outage the failover breaker opens and half-opens: on the run's virtual clock, so the same every time.
    const outage = await loadScenario(shippedScenarioUrl('provider-outage'));
    const [once, twice] = [await runSimulation(outage, { flows: 200 }), await runSimulation(outage, { flows: 200 })];
    expect(once.byProvider[1]!.sends).toBeGreaterThan(0);
    expect(JSON.stringify(twice)).toBe(JSON.stringify(once));
  });

  it('runs every shipped scenario (short) with no double send', async () => {
    for (const name of shippedScenarios) {
      const result = await runSimulation(await loadScenario(shippedScenarioUrl(name)), { flows: 120 });
      expect(result.people + result.attackers).toBe(120);
      expect(result.verified).toBeGreaterThan(0);
      // A person an inbound step verified was sent no code.
      expect(result.sends.people).toBeGreaterThanOrEqual(result.verified - result.verifiedWithoutSends);
      expect(result.doubleSends).toBe(0);
    }
  });

  it('runs a scenario written elsewhere (JSON, Kenya, Twilio, shillings) without code changes', async () => {
    const result = await runSimulation(parseScenario(JSON.parse(JSON.stringify(kenyaScenario))), { flows: 100 });
    expect(result.byOperator.map((operator) => operator.name)).toEqual(['Safaricom', 'Airtel-KE']);
    expect(result.byProvider).toEqual([{ name: 'twilio', sends: expect.any(Number), cost: expect.any(Number) }]);
    expect(result.cost.currency).toBe('KES');
    expect(result.verified).toBeGreaterThan(0);
    const [sms, , voice] = result.byChannel;
    expect(voice!.sends).toBeGreaterThan(0);
    expect(result.cost.people).toBe(Math.round((sms!.sends * 1.2 + voice!.sends * 3) * 100) / 100);
  });

  it('counts what the carrier did: DND drops unregistered senders, registration lets them through', async () => {
    const scenario = parseScenario({
      ...kenyaScenario,
      people: { ...kenyaScenario.people, resend: { after: 60, max: 0 } },
      operators: kenyaScenario.operators.map((operator) => ({ ...operator, dnd: { share: 1, registeredSenders: [] } })),
    });
    const dropped = await runSimulation(scenario, { flows: 60 });
    expect(dropped.verified).toBe(0);
    expect(dropped.sends.people).toBe(60);
    const registered = parseScenario({
      ...kenyaScenario,
      people: { ...kenyaScenario.people, resend: { after: 60, max: 0 } },
      operators: kenyaScenario.operators.map((operator) => ({
        ...operator,
        dnd: { share: 1, registeredSenders: ['Verikit'] },
      })),
    });
    expect((await runSimulation(registered, { flows: 60 })).verified).toBeGreaterThan(40);
  });

  it('hands the engine receipts only where the provider package carries them, unless the scenario says otherwise', async () => {
    expect(receiptsToday).toEqual({
      termii: ['sms', 'voice', 'whatsapp'],
      twilio: [],
      africastalking: [],
      gateway: [],
    });
    const scenario = await loadScenario(shippedScenarioUrl('dnd-heavy'));
    const plan = { channels: ['sms', 'voice'] };
    const today = await runSimulation(parseScenario({ ...JSON.parse(JSON.stringify(scenario)), plan }), { flows: 100 });
    expect(today.receipts).toBeGreaterThan(50);
    const silent = parseScenario({
      ...JSON.parse(JSON.stringify(scenario)),
      providers: [{ name: 'termii', sender: 'Verikit', receipts: [] }],
      plan,
    });
    const unreported = await runSimulation(silent, { flows: 100 });
    expect(unreported.receipts).toBe(0);
    // An undelivered SMS moves the flow on to voice by itself: more people verified, on the same seed.
    expect(figuresOf(today).verifiedShare).toBeGreaterThan(figuresOf(unreported).verifiedShare);
  });

  it('measures an escalating plan against SMS only on the same people, with no double send', async () => {
    const scenario = await loadScenario(shippedScenarioUrl('dnd-heavy'));
    const smsOnly = await runSimulation(scenario, { flows: 150 });
    const escalating = await runSimulation(scenario, {
      flows: 150,
      channels: ['sms', 'whatsapp', 'voice'],
      escalateAfterSeconds: 45,
    });
    expect(escalating.byChannel.find((channel) => channel.name === 'whatsapp')!.sends).toBeGreaterThan(0);
    expect(figuresOf(escalating).verifiedWithinShare).toBeGreaterThan(figuresOf(smsOnly).verifiedWithinShare);
    expect(escalating.doubleSends).toBe(0);
    const again = await runSimulation(scenario, {
      flows: 150,
      channels: ['sms', 'whatsapp', 'voice'],
      escalateAfterSeconds: 45,
    });
    expect(JSON.stringify(again)).toBe(JSON.stringify(escalating));
  });

  it('a plan that knows the number looks each one up: fewer SMS and fewer codes per verified person, no double send', async () => {
    const scenario = await loadScenario(shippedScenarioUrl('dnd-heavy'));
    const plan = { flows: 150, channels: ['sms', 'whatsapp', 'voice'] as const, escalateAfterSeconds: 45 };
    const blind = await runSimulation(scenario, plan);
    const knowing = await runSimulation(scenario, { ...plan, dndLookup: true });
    expect(blind.lookups).toEqual({ count: 0, cost: 0 });
    expect(knowing.lookups.count).toBe(150);
    const sms = (result: typeof blind) => result.byChannel.find((channel) => channel.name === 'sms')!.sends;
    expect(sms(knowing)).toBeLessThan(sms(blind));
    expect(knowing.sends.people / knowing.verified).toBeLessThan(blind.sends.people / blind.verified);
    expect(knowing.doubleSends).toBe(0);
    // A price on the rate card's lookups is in the bill, on the same people.
    const priced = parseScenario({
      ...JSON.parse(JSON.stringify(scenario)),
      rates: { ...scenario.rates, lookups: [{ provider: 'termii', price: 0.5 }] },
    });
    const paid = await runSimulation(priced, { ...plan, dndLookup: true });
    expect(paid.lookups).toEqual({ count: 150, cost: 75 });
    expect(paid.cost.people).toBeCloseTo(knowing.cost.people + 75, 6);
  });

  it('agrees over real HTTP to the fakes with the fast mode', async () => {
    const scenario = await loadScenario(shippedScenarioUrl('dnd-heavy'));
    const fast = await runSimulation(scenario, { flows: 200 });
    const http = await runSimulation(scenario, { flows: 200, mode: 'http' });
    expect(http.mode).toBe('http');
    expect(Math.abs(http.verified - fast.verified) / 200).toBeLessThanOrEqual(0.02);
  });
});

describe('scenario files', () => {
  it('names the bad field in a typed error', () => {
    const bad = (patch: Record<string, unknown>) => {
      try {
        parseScenario({ ...kenyaScenario, ...patch });
      } catch (error) {
        expect(InvalidInputError.isInstance(error)).toBe(true);
        return (error as InvalidInputError).message;
      }
      throw new Error('accepted');
    };
    expect(bad({ flows: 0 })).toMatch(/^flows /);
    expect(bad({ description: 'short' })).toMatch(/^description must say/);
    expect(bad({ operators: [{ ...kenyaScenario.operators[0], channels: { sms: { delivery: 2, delay: 5 } } }] })).toBe(
      'operators.0.channels.sms.delivery must be a number from 0 to 1',
    );
    expect(bad({ operators: [{ ...kenyaScenario.operators[0], prefixes: ['+2549999'] }] })).toBe(
      'operators.0.prefixes.0 is not the start of any mobile number the number library knows',
    );
    expect(bad({ rates: { currency: 'KES', cards: [{ provider: 'termii', channel: 'sms', price: 1 }] } })).toBe(
      'rates.cards.0.provider names no provider of the scenario',
    );
    expect(bad({ providers: [{ name: 'vonage' }] })).toMatch(/^providers\.0\.name must be termii, twilio/);
  });

  it('refuses a provider without phone verification when the run starts', async () => {
    const scenario = parseScenario({
      ...kenyaScenario,
      providers: [{ name: 'africastalking' }],
      rates: { currency: 'KES', cards: [] },
    });
    await expect(runSimulation(scenario, { flows: 1 })).rejects.toThrow(
      'providers.0.name names a provider without phone verification',
    );
    // A channel the provider cannot send is the scenario's mistake too, not a run of refused starts.
    const noWhatsApp = parseScenario({
      ...kenyaScenario,
      plan: { channels: ['whatsapp'] },
      providers: [{ name: 'gateway' }],
      rates: { currency: 'KES', cards: [] },
    });
    await expect(runSimulation(noWhatsApp, { flows: 1 })).rejects.toMatchObject({ code: 'capability_missing' });
  });
});
