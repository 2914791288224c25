import { assign, setup } from 'xstate';
import type { FlowPolicies } from './policies.js';
import type { BaseEvent, FlowContextBase } from './flow-context.js';
import { placeholderContext, baseGuards, verifiedAt, baseActions } from './machine-base.js';

/**
 * The dial-in flow's context. `ussdCode` (the service code with the reference in it) is shown to the user
 * while they may dial and removed when the flow ends; the reference is otherwise held only as `referenceHash`,
 * a keyed hash of the number verified (empty in `identify` mode) and the reference: the flow's route key.
 */
interface DialInContext extends FlowContextBase {
  /** `match`: only a dial from `phoneNumber` verifies. `identify`: the dialling number becomes `phoneNumber`. */
  readonly mode: 'match' | 'identify';
  readonly phoneNumber?: string;
  readonly ussdCode?: string;
  readonly referenceHash?: string;
}

/** A new reference: the code to dial and its keyed hash. */
interface Reference {
  readonly ussdCode: string;
  readonly referenceHash: string;
}

interface DialInInput extends Reference {
  readonly flowId: string;
  readonly now: number;
  readonly phoneNumber?: string;
}

/**
 * A dial the carrier reported: the number, and the keyed hashes of the reference typed with that number
 * (`matchHash`) and without one (`anyHash`), the two forms a flow's `referenceHash` can take.
 */
type DialEvent = { type: 'dial'; now: number; phoneNumber: string; matchHash: string; anyHash: string };
type DialInEvent = BaseEvent | DialEvent;

/** Removes what was shown to the user once the flow can no longer be verified by dialling. */
const forgetReference = { ussdCode: undefined, referenceHash: undefined } as const;

/**
 * Dial-in verification: awaiting-dial → verified | expired | cancelled, all final. The carrier's session request
 * (the `dial` event) verifies the flow when its reference matches, and in `match` mode when it came from the
 * number verified; any other dial changes nothing. An expired reference is not renewed: start a new flow.
 */
export function createDialInMachine(policies: FlowPolicies) {
  return setup({
    types: {} as { context: DialInContext; events: DialInEvent; input: DialInInput },
    actions: { ...baseActions<DialInContext, DialInEvent>() },
    guards: {
      ...baseGuards,
      dialMatches: ({ context, event }) => {
        if (event.type !== 'dial' || context.referenceHash === undefined) return false;
        if (context.mode === 'identify') return event.anyHash === context.referenceHash;
        return event.matchHash === context.referenceHash && event.phoneNumber === context.phoneNumber;
      },
    },
  }).createMachine({
    id: 'dial-in',
    context: ({ input }) => {
      if (input === undefined) return placeholderContext as DialInContext;
      return {
        flowId: input.flowId,
        effectSeq: 0,
        sendCount: 1,
        mode: input.phoneNumber === undefined ? 'identify' : 'match',
        ...(input.phoneNumber === undefined ? {} : { phoneNumber: input.phoneNumber }),
        ussdCode: input.ussdCode,
        referenceHash: input.referenceHash,
        expiresAt: input.now + policies.codeTtlMs,
      };
    },
    initial: 'awaiting-dial',
    states: {
      'awaiting-dial': {
        on: {
          dial: {
            guard: 'dialMatches',
            target: 'verified',
            actions: assign(({ event }) => ({
              ...forgetReference,
              phoneNumber: (event as DialEvent).phoneNumber,
              error: undefined,
              ...verifiedAt(event),
            })),
          },
          tick: { guard: 'codeExpired', target: 'expired', actions: assign(forgetReference) },
          cancel: { target: 'cancelled', actions: assign(forgetReference) },
        },
      },
      expired: { type: 'final' },
      verified: { type: 'final' },
      cancelled: { type: 'final' },
    },
  });
}
