import type { AnyStateMachine } from 'xstate';
import { createIdentityMachine } from './identity-machine.js';
import { createPhoneMachine } from './phone-machine.js';
import type { FlowPolicies } from './policies.js';
import type { FlowKind } from './shared.js';
import { createUssdMachine } from './ussd-machine.js';

/** The three machines, built for one set of policies. */
export interface FlowMachines {
  readonly ussd: ReturnType<typeof createUssdMachine>;
  readonly phone: ReturnType<typeof createPhoneMachine>;
  readonly identity: ReturnType<typeof createIdentityMachine>;
}

export function createFlowMachines(policies: FlowPolicies): FlowMachines {
  return { ussd: createUssdMachine(policies), phone: createPhoneMachine(policies), identity: createIdentityMachine(policies) };
}

/** The events a user (or the UI) can send to each kind of flow. */
export const userEventTypes: Readonly<Record<FlowKind, readonly string[]>> = Object.freeze({
  ussd: ['restart', 'cancel'],
  phone: ['submit-code', 'resend', 'cancel'],
  identity: ['submit-code', 'resend', 'cancel'],
});

/** Every status a flow can show. */
export type FlowStatus =
  | 'initiating'
  | 'awaiting-dial'
  | 'sending'
  | 'send-failed'
  | 'awaiting-code'
  | 'checking'
  | 'verified'
  | 'failed'
  | 'expired'
  | 'locked'
  | 'cancelled';

export function machineFor(machines: FlowMachines, kind: FlowKind): AnyStateMachine {
  return machines[kind] as AnyStateMachine;
}
