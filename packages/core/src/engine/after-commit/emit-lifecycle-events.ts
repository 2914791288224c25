import type { LifecycleListeners } from '../lifecycle-listeners.js';
import type { AfterCommitStep } from './after-commit-step.js';

/**
 * Tells this engine's `verikit.on` listeners the lifecycle events the change caused, once: only the instance whose
 * commit caused them does. A failing listener is logged by the listeners, never the committing caller's error.
 */
export function emitLifecycleEvents(listeners: LifecycleListeners): AfterCommitStep {
  return (change) => {
    if (change.events.length > 0) listeners.emit(change.events);
  };
}
