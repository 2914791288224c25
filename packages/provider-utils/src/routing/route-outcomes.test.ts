import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { silentLogger, type ProviderCallContextV1 } from '@verikit/provider';
import { createTestProviderV1 } from '@verikit/testing';
import { describe, expect, it } from 'vitest';
import { withFailover } from '../with-failover.js';
import { formatRouteTable } from './format-route-table.js';
import { createLearningRouter } from './learning-router.js';
import { createMemoryRouteCounts, decayedTally } from './memory-route-counts.js';

const context = (): ProviderCallContextV1 => ({
  signal: new AbortController().signal,
  idempotencyKey: 'flow:effect:1',
  logger: silentLogger,
});

/** One member pinned first, on a clock the test moves. */
function routed(options: { meter?: MeterProvider } = {}) {
  const counts = createMemoryRouteCounts();
  const members = ['first', 'second'].map((name) => createTestProviderV1({ name, channels: ['sms'] }));
  const clock = { at: 1_000_000 };
  const router = createLearningRouter({
    seed: 1,
    counts,
    clock: { now: () => clock.at },
    pins: [{ use: ['first'] }],
    ...(options.meter === undefined ? {} : { meter: options.meter.getMeter('verikit') }),
  });
  return { counts, members, clock, router, failover: withFailover(members, { router }) };
}

describe('the counts per route: sent, delivered, verified and time to verify', () => {
  it("counts a verification's seconds from the flow's first send, a resend's check included", async () => {
    const { counts, members, clock, router, failover } = routed();
    const phoneNumber = '+2348031110000';
    const sent = await failover.phone!.send({ phoneNumber, channel: 'sms' }, context());
    clock.at += 20_000;
    const resent = await failover.phone!.send({ phoneNumber, channel: 'sms', resendOf: sent.requestId }, context());
    clock.at += 25_000;
    const code = members[0]!.lastCode(phoneNumber)!;
    expect(await failover.phone!.check({ requestId: resent.requestId, code }, context())).toMatchObject({
      valid: true,
    });
    const tally = (await counts.read('sms:234803')).first!;
    // The send decayed over 45 s of a 24-hour half-life (0.9996); the verification was added at its own time.
    expect([tally.sent, tally.verified, tally.delivered, tally.verifySeconds].map((n) => n!.toFixed(2))).toEqual([
      '1.00',
      '1.00',
      '0.00',
      '45.00',
    ]);
    const [row] = await router.table();
    expect(row).toMatchObject({ member: 'first', delivered: 0 });
    expect(row!.secondsToVerify).toBeCloseTo(45, 5);
    expect(formatRouteTable([row!])).toMatch(/sms:234803\s+first\s+1\.0\s+0\.0\s+1\.0\s+45 s\s+\d+\.\d%/);
  });

  it("counts a receipt's delivered code once per flow (its first code), for the route and member that sent", async () => {
    const { counts, failover } = routed();
    const sent = await failover.phone!.send({ phoneNumber: '+2348031110001', channel: 'sms' }, context());
    await failover.phone!.delivered!({ requestId: sent.requestId, sends: 1 }, { logger: silentLogger });
    // A resend's receipt: the flow was counted once already; a requestId of no member counts nothing.
    await failover.phone!.delivered!({ requestId: sent.requestId, sends: 2 }, { logger: silentLogger });
    await failover.phone!.delivered!({ requestId: 'other~x', sends: 1 }, { logger: silentLogger });
    await new Promise((resolve) => setImmediate(resolve));
    expect((await counts.read('sms:234803')).first).toMatchObject({ sent: 1, delivered: 1, verified: 0 });
    // Without a router nothing is counted, and the engine is not asked to tell.
    expect(withFailover([createTestProviderV1()]).phone!.delivered).toBeUndefined();
  });

  it('decays delivered and the seconds to verify like sent and verified', async () => {
    const counts = createMemoryRouteCounts();
    await counts.add('sms:MTN', 'a', 'sent', 0, 1000);
    await counts.add('sms:MTN', 'a', 'delivered', 0, 1000);
    await counts.add('sms:MTN', 'a', 'verified', 0, 1000, 30);
    const tally = (await counts.read('sms:MTN')).a!;
    expect(decayedTally(tally, 1000, 1000)).toEqual({
      sent: 0.5,
      delivered: 0.5,
      verified: 0.5,
      verifySeconds: 15,
      at: 1000,
    });
    // A tally written before delivered and the seconds were kept reads as none of them.
    expect(decayedTally({ sent: 2, verified: 1, at: 0 }, 0, 1000)).toMatchObject({ delivered: 0, verifySeconds: 0 });
  });

  it('reports each outcome and the time to verify as OpenTelemetry metrics per route and member', async () => {
    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 60_000 });
    const meter = new MeterProvider({ readers: [reader] });
    const { members, clock, failover } = routed({ meter });
    const phoneNumber = '+2348031110002';
    const sent = await failover.phone!.send({ phoneNumber, channel: 'sms' }, context());
    await failover.phone!.delivered!({ requestId: sent.requestId, sends: 1 }, { logger: silentLogger });
    clock.at += 12_000;
    await failover.phone!.check({ requestId: sent.requestId, code: members[0]!.lastCode(phoneNumber)! }, context());
    await reader.forceFlush();
    const metrics = exporter.getMetrics().flatMap((each) => each.scopeMetrics.flatMap((scope) => scope.metrics));
    const outcomes = metrics.find((metric) => metric.descriptor.name === 'verikit.routing.outcomes')!;
    expect(outcomes.dataPoints.map((point) => [point.attributes, point.value])).toEqual(
      ['sent', 'delivered', 'verified'].map((outcome) => [
        { 'verikit.route': 'sms:234803', 'verikit.member': 'first', 'verikit.outcome': outcome },
        1,
      ]),
    );
    const toVerify = metrics.find((metric) => metric.descriptor.name === 'verikit.routing.time_to_verify')!;
    expect(toVerify.descriptor.unit).toBe('s');
    expect(toVerify.dataPoints.map((point) => [point.attributes, (point.value as { sum: number }).sum])).toEqual([
      [{ 'verikit.route': 'sms:234803', 'verikit.member': 'first' }, 12],
    ]);
    await meter.shutdown();
  });
});
