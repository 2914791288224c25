import type { Logger } from '@verikit/provider';
import type { FlowView } from '../../flows/view.js';
import type { EngineTelemetry } from '../../telemetry/engine-telemetry.js';
import type { AfterCommitStep } from './after-commit-step.js';

/**
 * Logs and counts the change: a start as `verikit.flow.started` (info) and a started flow; an event that changed
 * the flow as `verikit.flow.changed` (debug) and a transition from one status to another. A tick (a passed deadline
 * committed on its own) is neither.
 */
export function logChange(deps: { logger: Logger; telemetry: EngineTelemetry }): AfterCommitStep {
  const { logger, telemetry } = deps;
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
