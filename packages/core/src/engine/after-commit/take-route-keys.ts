import type { Logger } from '@verikit/provider';
import { errorCode } from '../../logging/error-code.js';
import type { FlowStore, StoreCall } from '../../store/flow-store.js';
import type { AfterCommitStep, CommittedChange } from './after-commit-step.js';

/** What taking route keys uses; `supersede` applies `superseded` to an older flow (the commit loop's commit). */
export interface TakeRouteKeysDeps {
  readonly store: FlowStore;
  readonly logger: Logger;
  readonly supersede: (flowId: string, call: StoreCall | undefined) => Promise<unknown>;
}

/**
 * Points the route keys the change adds (the active USSD flow of a number, a dial-in reference) at the flow, as
 * long as its record lives. For a definition that `supersedes`, the flow a key pointed to before is ended
 * (`superseded`, decision 1280) once the commit is out of its queue, unless it took the key back since (two flows
 * taking it at once: the one that holds it stays). A failing route write is the caller's error; a failing
 * supersede is logged: the newer flow stands, the older one still ends when its code expires.
 */
export function takeRouteKeys(deps: TakeRouteKeysDeps): AfterCommitStep {
  return (change) => (change.routes.length === 0 ? undefined : take(deps, change));
}

async function take(deps: TakeRouteKeysDeps, change: CommittedChange): Promise<void> {
  const { store } = deps;
  const { record, ttlMs, call, flow } = change;
  const displaced: Array<{ flowId: string; key: string }> = [];
  for (const key of change.routes) {
    const before = flow.definition.supersedes ? await store.getRoute(key, call) : undefined;
    await store.setRoute(key, record.id, ttlMs, call);
    if (before !== undefined && before !== record.id) displaced.push({ flowId: before, key });
  }
  for (const older of displaced) await change.outsideQueue(() => supersede(deps, older.flowId, older.key, call));
}

async function supersede(deps: TakeRouteKeysDeps, flowId: string, key: string, call: StoreCall | undefined) {
  try {
    if ((await deps.store.getRoute(key, call)) === flowId) return;
    await deps.supersede(flowId, call);
  } catch (error) {
    deps.logger.warn('verikit.supersede.failed', { flowId, error: errorCode(error) });
  }
}
