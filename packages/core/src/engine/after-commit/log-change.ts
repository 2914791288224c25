import { defaultLogger, silentLogger, type Logger } from '@verikit/provider';
import type { FlowView } from '../../flows/view.js';
import type { EngineTelemetry } from '../../telemetry/engine-telemetry.js';
import type { AfterCommitStep } from './after-commit-step.js';

/** The loggers of `@verikit/provider` that drop every info and debug line. */
const dropsInfoAndDebug: ReadonlySet<Logger> = new Set([defaultLogger, silentLogger]);

/**
 * Logs and counts the change: a start as `verikit.flow.started` (info) and a started flow; an event that changed
 * the flow as `verikit.flow.changed` (debug) and a transition from one status to another. A tick (a passed deadline
 * committed on its own) is neither. No step when nothing would come of it: a logger that drops info and debug lines
 * (`defaultLogger`, the engine's when none is given, or `silentLogger`) and no telemetry.
 */
export function logChange(deps: { logger: Logger; telemetry: EngineTelemetry }): AfterCommitStep | undefined {
  const { logger, telemetry } = deps;
  if (dropsInfoAndDebug.has(logger) && !telemetry.reports) return undefined;
  return ({ cause, record, previous, next }) => {
    if (cause === 'start') {
      logger.info('verikit.flow.started', { flowId: record.id, kind: record.kind });
      telemetry.started(record.kind);
    } else if (cause === 'event') {
      const status = next.value as FlowView['status'];
      logger.debug('verikit.flow.changed', { flowId: record.id, kind: record.kind, status, version: record.version });
      telemetry.changed(record.kind, previous!.value as string, status);
    }
  };
}
