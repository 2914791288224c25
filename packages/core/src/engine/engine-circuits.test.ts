import { ProviderUnavailableError } from '@verikit/provider';
import { composeProviders, withFailover } from '@verikit/provider-utils';
import { createTestProviderV1 } from '@verikit/testing';
import { describe, expect, it } from 'vitest';
import type { CircuitEvent } from './circuit-events.js';
import { createVerikit } from './create-verikit.js';
import { captureLogger, testSecret } from './engine.fixtures.js';
import { ManualClock } from './manual-clock.fixtures.js';

/** An engine on a failover provider (alone, or inside a composition), with its circuit events and log lines. */
function engineOn(compose: boolean) {
  const first = createTestProviderV1({ name: 'first' });
  const second = createTestProviderV1({ name: 'second' });
  // The breaker reads a clock moved by hand: on a loaded machine a start can take longer than halfOpenAfterMs.
  const clock = new ManualClock();
  const failover = withFailover([first, second], { breaker: { threshold: 2, halfOpenAfterMs: 100, clock } });
  const provider = compose ? composeProviders({ phone: failover, sms: second }) : failover;
  const { logger, lines } = captureLogger();
  const verikit = createVerikit({ provider, secret: testSecret, logger, guard: false });
  const events: CircuitEvent[] = [];
  const all: string[] = [];
  for (const type of ['circuit-open', 'circuit-half-open', 'circuit-closed'] as const)
    verikit.on(type, (event) => void events.push(event));
  verikit.on('*', (event) => void all.push(event.type));
  const circuitLogs = () =>
    lines.filter((line) => line.message === 'verikit.failover.circuit').map((line) => [line.level, line.fields]);
  return { first, second, verikit, events, all, circuitLogs, clock };
}

describe('the engine tells and logs its failover provider’s circuit changes', () => {
  for (const compose of [false, true]) {
    it(`open, half-open, closed through verikit.on and the logger${compose ? ', inside composeProviders' : ''}`, async () => {
      const { first, second, verikit, events, all, circuitLogs, clock } = engineOn(compose);
      let numbers = 0;
      const start = () =>
        verikit.start({ kind: 'phone', phoneNumber: `+23480312300${String(++numbers).padStart(2, '0')}` });
      // Two outages in a row (503s: nothing sent, so each flow moves on to the second member) open the first's circuit.
      for (let index = 0; index < 2; index += 1) {
        first.failNext('phone.send', new ProviderUnavailableError('HTTP 503', { requestSent: true, maybeSent: false }));
        expect((await start()).status).toBe('awaiting-code');
      }
      expect(events.map((event) => event.type)).toEqual(['circuit-open']);
      expect(events[0]).toMatchObject({
        provider: 'failover',
        member: 'first',
        state: 'open',
        previous: 'closed',
        origin: 'local',
      });
      const firstCalls = first.calls.length;
      await start();
      expect(first.calls).toHaveLength(firstCalls);
      // After halfOpenAfterMs one flow probes the first member, which answers: closed again.
      clock.advance(150);
      await start();
      expect(first.calls).toHaveLength(firstCalls + 1);
      expect(events.map((event) => event.type)).toEqual(['circuit-open', 'circuit-half-open', 'circuit-closed']);
      expect(circuitLogs()).toEqual([
        ['warn', { provider: 'failover', member: 'first', from: 'closed', to: 'open', origin: 'local' }],
        ['info', { provider: 'failover', member: 'first', from: 'open', to: 'half-open', origin: 'local' }],
        ['info', { provider: 'failover', member: 'first', from: 'half-open', to: 'closed', origin: 'local' }],
      ]);
      // `*` is every flow event, and no circuit event.
      expect(all.every((type) => !type.startsWith('circuit'))).toBe(true);
      expect(second.calls.length).toBeGreaterThanOrEqual(3);
    });
  }

  it('refuses an unknown event type, naming it', () => {
    const { verikit } = engineOn(false);
    expect(() => verikit.on('circuit-broken' as never, () => {})).toThrow(/type/);
  });
});
