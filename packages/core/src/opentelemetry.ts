/**
 * `@verikit/core/opentelemetry`: the engine's spans and metrics reported to OpenTelemetry. The only
 * entry that imports `@opentelemetry/api` (an optional peer dependency): an app that never imports
 * it needs no OpenTelemetry package. See docs/observability.md.
 *
 * @module
 */
export { openTelemetry, type OpenTelemetryOptions } from './telemetry/open-telemetry.js';
