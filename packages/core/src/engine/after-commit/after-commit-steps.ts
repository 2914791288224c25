import type { Logger, ProviderV1 } from '@verikit/provider';
import type { FlowStore, StoreCall } from '../../store/flow-store.js';
import type { EventWebhook } from '../../outbound/event-webhook.js';
import type { EngineTelemetry } from '../../telemetry/engine-telemetry.js';
import type { FlowChangeBus, PublishingWrite } from '../change-bus.js';
import type { Loaded, RecentlyUsed } from '../flow-records.js';
import { type LifecycleListeners, emitLifecycleEvents } from './emit-lifecycle-events.js';
import type { AfterCommitStep } from './after-commit-step.js';
import type { SendGuard } from '../../guard/send-guard.js';
import { countSends } from './count-sends.js';
import { deliverEventWebhook } from './deliver-event-webhook.js';
import { logChange } from './log-change.js';
import { publishView } from './publish-view.js';
import { rememberRecent } from './remember-recent.js';
import { takeRouteKeys } from './take-route-keys.js';
import { tellDelivery } from './tell-delivery.js';

/** What the after-commit steps use, each step taking what it needs. */
export interface AfterCommitDeps {
  readonly store: FlowStore;
  readonly logger: Logger;
  readonly telemetry: EngineTelemetry;
  readonly events: LifecycleListeners;
  readonly webhook: EventWebhook | undefined;
  readonly bus: FlowChangeBus;
  readonly publishing: PublishingWrite | undefined;
  readonly recent: RecentlyUsed<Loaded>;
  /** Applies `superseded` to an older flow whose route key a newer flow took. */
  readonly supersede: (flowId: string, call: StoreCall | undefined) => Promise<unknown>;
  /** The send guard, told of each send that went out (its cost); undefined when it is off. */
  readonly guard: SendGuard | undefined;
  /** The engine's provider: its phone capability is told of delivered codes (`tellDelivery`). */
  readonly env: { readonly provider: ProviderV1 };
}

/**
 * What a committed change causes, in order (see `after-commit-step.ts` for how to add a step). The order matters
 * where one step's effect must be visible before another's: route keys are written before the view is published,
 * so a subscriber that sees the change finds them. A step the engine's configuration gives nothing to do (no event
 * webhook, no send guard) is left out: its factory returns undefined.
 */
export function afterCommitSteps(deps: AfterCommitDeps): AfterCommitStep[] {
  return [
    takeRouteKeys(deps),
    countSends(deps.guard),
    tellDelivery(deps.env.provider.phone, deps.logger),
    emitLifecycleEvents(deps.events),
    deliverEventWebhook(deps.webhook),
    logChange(deps),
    publishView(deps),
    rememberRecent(deps.recent),
  ].filter((step) => step !== undefined);
}
