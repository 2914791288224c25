import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type HistogramMetricData,
} from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setup } from '../engine/engine.fixtures.js';
import { openTelemetry } from '../opentelemetry.js';

const phoneNumber = '+2348012345678';

/** Spans and metrics as docs/observability.md lists them: one line each, attributes as JSON. */
function render(
  spans: ReadonlyArray<{ name: string; parent: string | undefined; attributes: object }>,
  metrics: ReadonlyArray<{ name: string; unit: string; points: ReadonlyArray<{ attributes: object; value: unknown }> }>,
): string {
  const lines = spans.map(
    (span) => `span   ${span.name}${span.parent ? ` (in ${span.parent})` : ''} ${JSON.stringify(span.attributes)}`,
  );
  for (const metric of metrics) {
    for (const point of metric.points) {
      lines.push(
        `metric ${metric.name} [${metric.unit}] ${JSON.stringify(point.attributes)} ${JSON.stringify(point.value)}`,
      );
    }
  }
  return lines.join('\n');
}
const code = '123456';

const contextManager = new AsyncLocalStorageContextManager();
beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(() => {
  context.disable();
});

/** An engine reporting to in-memory exporters, as an app's SDK would be set up. */
function instrumented() {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 60_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  const telemetry = openTelemetry({
    tracer: tracerProvider.getTracer('verikit'),
    meter: meterProvider.getMeter('verikit'),
  });
  const engine = setup({ telemetry });
  /** The spans as name, parent's name and attributes, in the order they ended. */
  function spanList() {
    const finished = spans.getFinishedSpans();
    const names = new Map(finished.map((span) => [span.spanContext().spanId, span.name]));
    return finished.map((span) => ({
      name: span.name,
      parent: span.parentSpanContext ? names.get(span.parentSpanContext.spanId) : undefined,
      status: span.status.code === 2 ? 'error' : 'unset',
      attributes: span.attributes,
    }));
  }
  /** The metrics as name and data points (a histogram by its count only: durations vary). */
  async function metricList() {
    await reader.forceFlush();
    const exported = metricExporter.getMetrics().at(-1)!;
    return exported.scopeMetrics
      .flatMap((scope) => scope.metrics)
      .sort((a, b) => a.descriptor.name.localeCompare(b.descriptor.name))
      .map((metric) => ({
        name: metric.descriptor.name,
        unit: metric.descriptor.unit,
        points: metric.dataPoints.map((point) => ({
          attributes: point.attributes,
          value:
            (metric as HistogramMetricData).dataPointType === 0
              ? { count: (point.value as { count: number }).count }
              : point.value,
        })),
      }));
  }
  return { ...engine, spanList, metricList };
}

describe('openTelemetry: what one phone verification reports', () => {
  it('spans for the start, each provider call and each commit, and the counters and latency metrics', async () => {
    const { verikit, spanList, metricList } = instrumented();
    const started = await verikit.start({ kind: 'phone', phoneNumber });
    const verified = await verikit.send(started.id, { type: 'submit-code', code });
    expect(verified.status).toBe('verified');

    const spans = spanList();
    const flowId = started.id;
    expect(spans.map((span) => [span.name, span.parent])).toEqual([
      ['verikit.provider.call', 'verikit.start'],
      ['verikit.commit', 'verikit.start'],
      ['verikit.start', undefined],
      ['verikit.commit', undefined],
      ['verikit.provider.call', undefined],
      ['verikit.commit', undefined],
    ]);
    expect(spans[0]!.attributes).toEqual({
      'verikit.flow.id': flowId,
      'verikit.provider': 'test',
      'verikit.capability': 'phone',
      'verikit.operation': 'send',
      'verikit.channel': 'sms',
      'verikit.outcome': 'ok',
    });
    expect(spans[2]!.attributes).toEqual({
      'verikit.flow.kind': 'phone',
      'verikit.flow.id': flowId,
      'verikit.flow.status': 'awaiting-code',
    });
    expect(spans[4]!.attributes).toMatchObject({ 'verikit.operation': 'check', 'verikit.outcome': 'ok' });
    expect(spans[5]!.attributes).toEqual({
      'verikit.flow.id': flowId,
      'verikit.flow.status': 'verified',
      'verikit.commit.changed': 'true',
    });

    const metrics = await metricList();
    // docs/observability.md shows this very listing.
    const listing = render(spans, metrics).replaceAll(flowId, '<flowId>');
    if (process.env.PRINT_LISTING) console.log(listing);
    expect(readFileSync(new URL('../../../../docs/observability.md', import.meta.url), 'utf8')).toContain(listing);
    expect(metrics.map((metric) => [metric.name, metric.points])).toEqual([
      ['verikit.flows.started', [{ attributes: { 'verikit.flow.kind': 'phone' }, value: 1 }]],
      [
        'verikit.provider.duration',
        [
          {
            attributes: {
              'verikit.provider': 'test',
              'verikit.capability': 'phone',
              'verikit.operation': 'send',
              'verikit.outcome': 'ok',
            },
            value: { count: 1 },
          },
          {
            attributes: {
              'verikit.provider': 'test',
              'verikit.capability': 'phone',
              'verikit.operation': 'check',
              'verikit.outcome': 'ok',
            },
            value: { count: 1 },
          },
        ],
      ],
      [
        'verikit.sends',
        [{ attributes: { 'verikit.provider': 'test', 'verikit.channel': 'sms', 'verikit.outcome': 'ok' }, value: 1 }],
      ],
      [
        'verikit.verifications',
        [{ attributes: { 'verikit.flow.kind': 'phone', 'verikit.outcome': 'verified' }, value: 1 }],
      ],
    ]);
  });

  it('no span or metric attribute carries the phone number, the code or any digit run', async () => {
    const { verikit, spanList, metricList } = instrumented();
    const started = await verikit.start({ kind: 'phone', phoneNumber });
    await verikit.send(started.id, { type: 'submit-code', code: '000000' });
    await verikit.send(started.id, { type: 'submit-code', code });
    const values = [
      ...spanList().flatMap((span) => Object.values(span.attributes)),
      ...(await metricList()).flatMap((metric) => metric.points.flatMap((point) => Object.values(point.attributes))),
    ].map((value) => String(value).replaceAll(started.id, ''));
    expect(values.length).toBeGreaterThan(20);
    for (const value of values) {
      expect(value).not.toMatch(/\d{4,}/);
      expect(value).not.toContain(phoneNumber.slice(1));
    }
  });

  it('a failed send: the provider call span and the sends counter say the error code, never the message', async () => {
    const { verikit, provider, spanList, metricList } = instrumented();
    provider.failNext('phone.send', new Error(`refused for ${phoneNumber}`));
    const started = await verikit.start({ kind: 'phone', phoneNumber });
    expect(started.status).toBe('send-failed');
    const call = spanList().find((span) => span.name === 'verikit.provider.call')!;
    expect(call.attributes).toMatchObject({
      'verikit.outcome': 'provider_error',
      'verikit.error.code': 'provider_error',
    });
    const sends = (await metricList()).find((metric) => metric.name === 'verikit.sends')!;
    expect(sends.points).toEqual([
      {
        attributes: { 'verikit.provider': 'test', 'verikit.channel': 'sms', 'verikit.outcome': 'provider_error' },
        value: 1,
      },
    ]);
    expect(JSON.stringify(spanList())).not.toContain(phoneNumber.slice(1));
  });

  it('a start that throws ends its span as an error with the error code only', async () => {
    const { verikit, spanList } = instrumented();
    await expect(verikit.start({ kind: 'phone', phoneNumber: 'not a number' })).rejects.toThrow();
    expect(spanList()).toEqual([
      {
        name: 'verikit.start',
        parent: undefined,
        status: 'error',
        attributes: { 'verikit.flow.kind': 'phone', 'verikit.error.code': 'invalid_input' },
      },
    ]);
    // A kind of the caller's own (here a phone number) never becomes an attribute.
    await expect(verikit.start({ kind: phoneNumber } as never)).rejects.toThrow();
    expect(spanList()[1]!.attributes).toEqual({
      'verikit.flow.kind': 'invalid',
      'verikit.error.code': 'invalid_input',
    });
  });

  it('an inbound delivery is a verikit.receive span with its outcome, the commit it made inside it', async () => {
    const { verikit, provider, spanList, metricList } = instrumented();
    const started = await verikit.start({ kind: 'ussd', phoneNumber });
    await provider.completeUssd(phoneNumber);
    expect((await verikit.get(started.id)).status).toBe('verified');
    const spans = spanList();
    expect(spans.slice(-2)).toEqual([
      {
        name: 'verikit.commit',
        parent: 'verikit.receive',
        status: 'unset',
        attributes: {
          'verikit.flow.id': started.id,
          'verikit.flow.status': 'verified',
          'verikit.commit.changed': 'true',
        },
      },
      { name: 'verikit.receive', parent: undefined, status: 'unset', attributes: { 'verikit.outcome': 'applied' } },
    ]);
    expect(spans.find((span) => span.name === 'verikit.provider.call')!.attributes).toMatchObject({
      'verikit.capability': 'ussd',
      'verikit.operation': 'initiate',
      'verikit.channel': 'ussd',
    });
    const verifications = (await metricList()).find((metric) => metric.name === 'verikit.verifications')!;
    expect(verifications.points).toEqual([
      { attributes: { 'verikit.flow.kind': 'ussd', 'verikit.outcome': 'verified' }, value: 1 },
    ]);
  });
});
