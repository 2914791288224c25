import type { Logger } from '@verikit/provider';
import { errorCode } from '../../logging/error-code.js';
import { MemoryChangeBus, type FlowChangeBus, type PublishingWrite } from '../change-bus.js';
import type { AfterCommitStep } from './after-commit-step.js';

/**
 * Hands the committed view to the change bus; a failing bus is logged, never the caller's error. A view the write
 * published already (`publishing`) goes to this instance's listeners only, and is made only if it has some; a bus
 * that says nobody follows the flow gets nothing (docs/decisions/1450-a-view-only-when-asked.md). The in-process
 * bus is not even asked about an unseen flow: its listeners subscribe by a flow's id, which nobody has yet (decision
 * 1860). Any other bus is, since it may carry the change further than this process.
 */
export function publishView(deps: {
  bus: FlowChangeBus;
  publishing: PublishingWrite | undefined;
  logger: Logger;
}): AfterCommitStep {
  const { bus, publishing, logger } = deps;
  const inProcess = bus instanceof MemoryChangeBus;
  // Not an async function: a change published with its write (or followed by nobody) is done at once, and the commit
  // then waits for no promise of this step.
  return ({ record, view, publishedWithWrite, unseen }) => {
    if (unseen && inProcess) return undefined;
    const flowId = record.id;
    try {
      if (publishedWithWrite) publishing!.deliverLocally(flowId, view);
      else if (bus.follows?.(flowId) !== false)
        return bus.publish(view())?.catch((error: unknown) => publishFailed(logger, flowId, error));
    } catch (error) {
      publishFailed(logger, flowId, error);
    }
    return undefined;
  };
}

function publishFailed(logger: Logger, flowId: string, error: unknown): void {
  logger.warn('verikit.publish.failed', { flowId, error: errorCode(error) });
}
