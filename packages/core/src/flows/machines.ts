import { createIdentityMachine } from './identity-machine.js';
import { createPhoneMachine } from './phone-machine.js';
import type { FlowPolicies } from './policies.js';
import { createUssdMachine } from './ussd-machine.js';
import { createDialInMachine } from './dial-in-machine.js';

/** The flow machines, built for one set of policies. */
export interface FlowMachines {
  readonly ussd: ReturnType<typeof createUssdMachine>;
  readonly phone: ReturnType<typeof createPhoneMachine>;
  readonly identity: ReturnType<typeof createIdentityMachine>;
  readonly 'dial-in': ReturnType<typeof createDialInMachine>;
}

/** Builds every flow machine, for tools that walk or draw them (the machine tests, the diagrams in docs/flows.md). */
export function createFlowMachines(policies: FlowPolicies): FlowMachines {
  return {
    ussd: createUssdMachine(policies),
    phone: createPhoneMachine(policies),
    identity: createIdentityMachine(policies),
    'dial-in': createDialInMachine(policies),
  };
}

/** Every status a flow can show. */
export type FlowStatus =
  | 'initiating'
  | 'awaiting-dial'
  | 'awaiting-message'
  | 'sending'
  | 'send-failed'
  | 'awaiting-code'
  | 'awaiting-consent'
  | 'awaiting-selfie'
  | 'checking'
  | 'verified'
  | 'failed'
  | 'expired'
  | 'locked'
  | 'cancelled';
