import {
  metrics,
  SpanStatusCode,
  trace,
  type Counter,
  type Histogram,
  type Meter,
  type Tracer,
} from '@opentelemetry/api';
import { errorCode } from '../logging/error-code.js';
import {
  telemetryInstruments,
  type Telemetry,
  type TelemetryAttributes,
  type TelemetryCounter,
  type TelemetryHistogram,
} from './telemetry.js';

/** Options of {@link openTelemetry}. */
export interface OpenTelemetryOptions {
  /** Default: `trace.getTracer('verikit')`, the globally registered provider's (a no-op until an SDK is registered). */
  tracer?: Tracer;
  /** Default: `metrics.getMeter('verikit')`, the globally registered provider's. */
  meter?: Meter;
}

/**
 * Reports the engine's spans and metrics to OpenTelemetry: pass it as `createVerikit({ telemetry })`.
 * A failed span is marked `ERROR` with the error's `code` (`verikit.error.code`), never its message
 * or stack, which may carry what a provider echoed.
 *
 * @example
 * import { openTelemetry } from '@verikit/core/opentelemetry';
 * const verikit = createVerikit({ provider, secret, telemetry: openTelemetry() });
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): Telemetry {
  const tracer = options.tracer ?? trace.getTracer('verikit');
  const meter = options.meter ?? metrics.getMeter('verikit');
  const counters = {} as Record<TelemetryCounter, Counter>;
  for (const name of ['verikit.flows.started', 'verikit.sends', 'verikit.verifications'] as const) {
    counters[name] = meter.createCounter(name, telemetryInstruments[name]);
  }
  const histograms: Record<TelemetryHistogram, Histogram> = {
    'verikit.provider.duration': meter.createHistogram('verikit.provider.duration', {
      ...telemetryInstruments['verikit.provider.duration'],
      // Provider calls take tens of milliseconds to seconds; the default buckets are sized for milliseconds.
      advice: { explicitBucketBoundaries: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] },
    }),
  };
  return {
    span<T>(
      name: string,
      attributes: TelemetryAttributes,
      work: (annotate: (attributes: TelemetryAttributes) => void) => Promise<T>,
    ): Promise<T> {
      return tracer.startActiveSpan(name, { attributes }, async (span) => {
        try {
          return await work((more) => span.setAttributes(more));
        } catch (error) {
          span.setAttribute('verikit.error.code', errorCode(error));
          span.setStatus({ code: SpanStatusCode.ERROR });
          throw error;
        } finally {
          span.end();
        }
      });
    },
    add: (counter, attributes) => counters[counter].add(1, attributes),
    record: (histogram, value, attributes) => histograms[histogram].record(value, attributes),
  };
}
