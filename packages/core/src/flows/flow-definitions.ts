import type { FlowDefinition } from './flow-definition.js';
import { identityFlow } from './identity-flow.js';
import { phoneFlow } from './phone-flow.js';
import type { FlowKind } from './flow-context.js';
import { ussdFlow } from './ussd-flow.js';
import { dialInFlow } from './dial-in-flow.js';

/** Every kind of flow the engine runs, by kind. A new kind is one definition added here. */
export const flowDefinitions: Readonly<Record<FlowKind, FlowDefinition>> = Object.freeze({
  ussd: ussdFlow as FlowDefinition,
  phone: phoneFlow as FlowDefinition,
  identity: identityFlow as FlowDefinition,
  'dial-in': dialInFlow as FlowDefinition,
});
