import { initialTransition, type AnyMachineSnapshot } from 'xstate';
import { createFlowMachines } from './machines.js';
import { defaultPolicies } from './policies.js';

/**
 * Test-only: the walk of every flow machine by generated paths (xstate/graph), shared by the machines' tests and the
 * equivalence tests of the fast transitions (fast-transitions/).
 */
// Small limits keep the state space small enough to walk completely.
const policies = { ...defaultPolicies, maxAttempts: 2, maxSendsPerFlow: 2 };
export const machines = createFlowMachines(policies);
export const T0 = 1_000_000;
export const matchingHash = 'a'.repeat(32);

export type Event = Record<string, unknown> & { type: string; now: number };
/** The context fields the walk reads, each present in some states of some machines only. */
type WalkedContext = {
  effect?: { id: string; deadline: number };
  unansweredEffectId?: string;
  expiresAt?: number;
  resendAvailableAt?: number;
  escalateAt?: number;
  fallbackAt?: number;
};

/** Every event that could matter in a snapshot, with times derived from its context. */
export function eventsFor(kind: 'ussd' | 'phone' | 'identity' | 'dial-in') {
  return (snapshot: AnyMachineSnapshot): Event[] => {
    const c = snapshot.context as WalkedContext;
    const effectId = c.effect?.id ?? c.unansweredEffectId ?? 'none';
    const beforeDeadline = (c.effect?.deadline ?? c.expiresAt ?? T0 + 1) - 1;
    const events: Event[] = [{ type: 'cancel', now: T0 }];
    if (c.effect) events.push({ type: 'tick', now: c.effect.deadline });
    if (c.expiresAt !== undefined) events.push({ type: 'tick', now: c.expiresAt });
    const results: Record<string, unknown>[] =
      kind === 'ussd'
        ? [{ otp: '1234', ussdCode: '*384*1#' }]
        : kind === 'identity'
          ? [
              {},
              { outcome: 'passed', by: 'test', fields: { lastName: true } },
              { outcome: 'failed', errorCode: 'match_failed', errorMessage: 'differs: lastName' },
              { outcome: 'consent-requested', reference: 'consent-1', url: 'https://consent.test/1' },
              { outcome: 'pending' },
            ]
          : [
              { requestId: 'req-1', valid: true },
              { requestId: 'req-1', valid: false },
              ...['expired', 'attempts-exhausted', 'not-pending'].map((reason) => ({
                requestId: 'req-1',
                valid: false,
                reason,
              })),
            ];
    for (const result of results) events.push({ type: 'effect-succeeded', now: beforeDeadline, effectId, result });
    events.push({
      type: 'effect-failed',
      now: beforeDeadline,
      effectId,
      error: { code: 'provider_unavailable', message: 'down' },
    });
    events.push({
      type: 'effect-failed',
      now: beforeDeadline,
      effectId,
      error: { code: 'provider_rejected', message: 'refused' },
    });
    if (kind === 'phone') {
      // A send that provably never left (a fallback follows when a channel is left), and the same refused by the limit.
      const unsent = { code: 'provider_rejected', message: 'refused' };
      events.push({ type: 'effect-failed', now: beforeDeadline, effectId, error: unsent, provablyUnsent: true });
      events.push({
        type: 'effect-failed',
        now: beforeDeadline,
        effectId,
        error: unsent,
        provablyUnsent: true,
        fallback: false,
      });
      events.push({ type: 'delivery-failed', now: beforeDeadline, requestId: 'req-1' });
      events.push({ type: 'delivery-failed', now: beforeDeadline, requestId: 'req-older' });
      // The flow's timer when the plan's next send is due, and the same refused by the limit.
      const due = c.fallbackAt ?? Math.max(c.escalateAt ?? T0, c.resendAvailableAt ?? T0);
      events.push({ type: 'timer', now: due }, { type: 'timer', now: due, fallback: false });
    }
    const resendAt = c.resendAvailableAt ?? T0;
    if (kind === 'dial-in') {
      // The right reference from the number verified; the right reference from another number; a wrong reference.
      const dial = { type: 'dial', now: T0, anyHash: 'e'.repeat(32) };
      events.push(
        { ...dial, phoneNumber: '+2348012345678', matchHash: matchingHash },
        { ...dial, phoneNumber: '+2348037654321', matchHash: matchingHash },
        { ...dial, phoneNumber: '+2348012345678', matchHash: 'b'.repeat(32) },
      );
    } else if (kind === 'ussd') {
      events.push(
        { type: 'ussd-result', now: T0, status: 'success' },
        { type: 'ussd-result', now: T0, status: 'failed' },
        { type: 'superseded', now: T0 },
      );
      events.push({ type: 'restart', now: resendAt });
    } else {
      const codeTime = (c.expiresAt ?? T0 + 1) - 1;
      if (kind === 'phone') events.push({ type: 'submit-code', now: codeTime, code: '975310' });
      else
        events.push(
          { type: 'submit-code', now: codeTime, codeHash: matchingHash },
          { type: 'submit-code', now: codeTime, codeHash: 'b'.repeat(32) },
        );
      events.push({ type: 'resend', now: resendAt, otpHash: matchingHash });
      if (kind === 'identity')
        events.push({ type: 'consent-given', now: codeTime }, { type: 'submit-selfie', now: codeTime });
      if (kind === 'phone') {
        events.push({ type: 'resend', now: resendAt, channel: 'voice' });
        events.push({ type: 'resend', now: resendAt, channel: 'whatsapp' });
        // A message carrying the reference from the number; from another number; with another reference.
        const message = { type: 'inbound-message', now: T0, channel: 'whatsapp', to: inboundNumber };
        events.push(
          { ...message, phoneNumber: '+2348012345678', referenceHashes: [matchingHash] },
          { ...message, phoneNumber: '+2348037654321', referenceHashes: [matchingHash] },
          { ...message, phoneNumber: '+2348012345678', referenceHashes: ['b'.repeat(32)] },
        );
      }
    }
    return events;
  };
}

/** The number of the inbound step the walk's phone flows send to. */
const inboundNumber = '+14155238886';

/** A phone plan that starts on an inbound step (decision 1695): the flow starts in `awaiting-message`. */
export const phoneInboundInput = {
  flowId: 'flow-phone-inbound-00000',
  now: T0,
  phoneNumber: '+2348012345678',
  channels: ['sms', 'voice'],
  escalateAfterMs: 60_000,
  inbound: {
    channels: ['whatsapp'],
    to: { whatsapp: inboundNumber },
    nonce: 'nonce',
    referenceHash: matchingHash,
    until: T0 + 600_000,
  },
} as const;

export const inputs = {
  ussd: { flowId: 'flow-ussd-0000000000000', now: T0, phoneNumber: '+2348012345678' },
  phone: {
    flowId: 'flow-phone-000000000000',
    now: T0,
    phoneNumber: '+2348012345678',
    channels: ['sms', 'voice'],
    locale: 'fr',
    escalateAfterMs: 60_000,
  },
  'dial-in': {
    flowId: 'flow-dial-in-0000000000',
    now: T0,
    phoneNumber: '+2348012345678',
    ussdCode: '*384*1234*123456#',
    referenceHash: matchingHash,
  },
  identity: {
    flowId: 'flow-identity-000000000',
    now: T0,
    idType: 'bvn',
    numberMasked: '*******8901',
    numberHash: 'c'.repeat(32),
    numberSealed: 'sealed',
    otpHash: matchingHash,
  },
} as const;

/**
 * Identity inputs whose ladders, walked together, take every transition of the identity machine: the OTP alone, and
 * ladders that put each step first, between and last (docs/flows.md, "The identity ladder").
 */
export const identityLadderInputs = [
  inputs.identity,
  ...(
    [
      ['match', 'consent', 'otp', 'face'],
      ['face', 'otp', 'consent'],
      ['match', 'face'],
    ] as const
  ).map((steps) => {
    const { otpHash: _otp, ...rest } = inputs.identity;
    return { ...rest, steps, claimsSealed: 'sealed-claims' };
  }),
];

/**
 * Two snapshots are the same graph node when they differ only in counters and timestamps (effect
 * ids, deadlines, expiry): without this the walk would never end, since a failed check gives its
 * attempt back and can be retried forever.
 */
function serializeState(snapshot: AnyMachineSnapshot): string {
  const { effectSeq, effect, unansweredEffectId, resendAvailableAt, expiresAt, escalateAt, fallbackAt, ...rest } =
    snapshot.context as Record<string, unknown>;
  return JSON.stringify({
    value: snapshot.value,
    rest,
    escalates: escalateAt !== undefined,
    fallsBack: fallbackAt !== undefined,
    effect: effect !== undefined,
    unanswered: unansweredEffectId !== undefined,
    expires: expiresAt !== undefined,
  });
}

/** The options of xstate/graph's walk of one machine: its events, its input, and states told apart by shape. */
export function walkOptions(
  kind: 'ussd' | 'phone' | 'identity' | 'dial-in',
  input: unknown = inputs[kind],
  fromState?: AnyMachineSnapshot,
) {
  return { events: eventsFor(kind), input, serializeState, limit: 10_000, fromState } as never;
}

/** The walk of a phone flow that starts on an inbound step: from `awaiting-message`, as the engine resolves it. */
export function phoneInboundWalk() {
  const machine = machines.phone;
  const [first] = initialTransition(machine, phoneInboundInput as never);
  const start = machine.resolveState({ value: 'awaiting-message', context: first.context as never });
  // One send more than a flow that starts by sending, and the step present or forgotten: a larger graph.
  return {
    ...(walkOptions('phone', phoneInboundInput, start as AnyMachineSnapshot) as object),
    limit: 50_000,
  } as never;
}
