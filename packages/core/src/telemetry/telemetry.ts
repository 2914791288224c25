/**
 * Span and metric attributes: strings only. verikit puts ids, kinds, provider names, channels and
 * outcomes here, never a phone number, a code, a secret or a flow secret.
 */
export type TelemetryAttributes = Readonly<Record<string, string>>;

/** The counters the engine adds to (docs/observability.md). */
export type TelemetryCounter = 'verikit.flows.started' | 'verikit.sends' | 'verikit.verifications';

/** The histograms the engine records to: the provider call's duration, in seconds. */
export type TelemetryHistogram = 'verikit.provider.duration';

/**
 * Where the engine reports its spans and metrics: `openTelemetry()` from `@verikit/core/opentelemetry`,
 * or an object of one's own. Absent (the default), the engine reports nothing and pays nothing.
 */
export interface Telemetry {
  /**
   * Runs `work` inside a span named `name`. `annotate` adds attributes known only at the end (an
   * outcome). A throw from `work` ends the span as failed and is rethrown unchanged.
   */
  span<T>(
    name: string,
    attributes: TelemetryAttributes,
    work: (annotate: (attributes: TelemetryAttributes) => void) => Promise<T>,
  ): Promise<T>;
  /** Adds one to a counter. */
  add(counter: TelemetryCounter, attributes: TelemetryAttributes): void;
  /** Records one value to a histogram. */
  record(histogram: TelemetryHistogram, value: number, attributes: TelemetryAttributes): void;
}

/** What each instrument measures: the OpenTelemetry adapter creates them from this list. */
export const telemetryInstruments = {
  'verikit.flows.started': {
    unit: '{flow}',
    description: 'Flows started (repeats of an idempotent start not counted)',
  },
  'verikit.sends': {
    unit: '{message}',
    description: 'Sends asked of a provider, by provider, channel and outcome (ok, unknown or an error code)',
  },
  'verikit.verifications': {
    unit: '{flow}',
    description:
      'Flows that ended: verified, failed, locked or expired (divide verified by flows.started for conversion)',
  },
  'verikit.provider.duration': { unit: 's', description: 'How long a provider call took, by provider and operation' },
} as const satisfies Record<TelemetryCounter | TelemetryHistogram, { unit: string; description: string }>;
