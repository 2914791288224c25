import { getAdjacencyMap, getShortestPaths } from 'xstate/graph';
import { initialTransition, transition, type AnyMachineSnapshot, type AnyStateMachine, type StateNode } from 'xstate';
import { describe, expect, it } from 'vitest';
import { createFlowMachines } from './machines.js';
import { defaultPolicies } from './policies.js';
import { createPureTransitions } from './pure-transition.js';

// Small limits keep the state space small enough to walk completely.
const policies = { ...defaultPolicies, maxAttempts: 2, maxSendsPerFlow: 2 };
const machines = createFlowMachines(policies);
const T0 = 1_000_000;
const matchingHash = 'a'.repeat(32);

type Event = Record<string, unknown> & { type: string; now: number };
/** The context fields the walk reads, each present in some states of some machines only. */
type WalkedContext = {
  effect?: { id: string; deadline: number };
  unansweredEffectId?: string;
  expiresAt?: number;
  resendAvailableAt?: number;
};

/** Every event that could matter in a snapshot, with times derived from its context. */
function eventsFor(kind: 'ussd' | 'phone' | 'identity' | 'dial-in') {
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
          ? [{}]
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
      if (kind === 'phone') {
        events.push({ type: 'resend', now: resendAt, channel: 'voice' });
        events.push({ type: 'resend', now: resendAt, channel: 'whatsapp' });
      }
    }
    return events;
  };
}

const inputs = {
  ussd: { flowId: 'flow-ussd-0000000000000', now: T0, phoneNumber: '+2348012345678' },
  phone: {
    flowId: 'flow-phone-000000000000',
    now: T0,
    phoneNumber: '+2348012345678',
    channels: ['sms', 'voice'],
    locale: 'fr',
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
 * Two snapshots are the same graph node when they differ only in counters and timestamps (effect
 * ids, deadlines, expiry): without this the walk would never end, since a failed check gives its
 * attempt back and can be retried forever.
 */
function serializeState(snapshot: AnyMachineSnapshot): string {
  const { effectSeq, effect, unansweredEffectId, resendAvailableAt, expiresAt, ...rest } = snapshot.context as Record<
    string,
    unknown
  >;
  return JSON.stringify({
    value: snapshot.value,
    rest,
    effect: effect !== undefined,
    unanswered: unansweredEffectId !== undefined,
    expires: expiresAt !== undefined,
  });
}

/** The transitions a machine declares, as `source --event--> target`; root-level ones apply to every non-final state. */
function declaredTransitions(machine: AnyStateMachine): Set<string> {
  const keys = new Set<string>();
  const states = Object.values(machine.root.states) as StateNode[];
  const rootTransitions = [...machine.root.transitions.entries()];
  for (const state of states) {
    if (state.type === 'final') continue;
    const own = [...state.transitions.entries()];
    const ownTypes = new Set(own.map(([type]) => type));
    for (const [type, candidates] of [...own, ...rootTransitions.filter(([type]) => !ownTypes.has(type))]) {
      for (const candidate of candidates)
        keys.add(`${state.key} --${type}--> ${candidate.target?.[0]?.key ?? state.key}`);
    }
  }
  return keys;
}

describe.each(['ussd', 'phone', 'identity', 'dial-in'] as const)(
  'the %s machine, walked by generated paths',
  (kind) => {
    const machine = machines[kind] as AnyStateMachine;
    const options = { events: eventsFor(kind), input: inputs[kind], serializeState, limit: 10_000 } as never;

    it('reaches every state', () => {
      const reached = new Set(getShortestPaths(machine, options).map((path) => String(path.state.value)));
      expect([...reached].sort()).toEqual(Object.keys(machine.root.states).sort());
    });

    it('takes every declared transition', () => {
      const adjacency = getAdjacencyMap(machine, options);
      const taken = new Set<string>();
      for (const { state, transitions } of Object.values(adjacency)) {
        for (const { event, state: next } of Object.values(transitions) as Array<{
          event: Event;
          state: AnyMachineSnapshot;
        }>) {
          if (next === state) continue;
          taken.add(`${String(state.value)} --${(event as Event).type}--> ${String(next.value)}`);
        }
      }
      expect([...declaredTransitions(machine)].filter((key) => !taken.has(key))).toEqual([]);
    });

    it('declares no transition on the root or out of a final state (a done snapshot must take no event)', () => {
      expect([...machine.root.transitions.keys()]).toEqual([]);
      for (const state of Object.values(machine.root.states) as StateNode[]) {
        if (state.type === 'final') expect([...state.transitions.keys()]).toEqual([]);
      }
    });

    it('replays every generated path to the same state with the pure transition function', () => {
      for (const path of getShortestPaths(machine, options)) {
        let snapshot = path.steps[0]!.state;
        for (const step of path.steps.slice(1)) snapshot = transition(machine, snapshot, step.event as never)[0];
        expect(snapshot.value).toEqual(path.state.value);
      }
    });

    it("createPureTransitions (one shared scope) gives exactly what xstate's transition() gives, on every generated state and event", () => {
      const pure = createPureTransitions(machine);
      const plain = (actions: unknown[]) =>
        actions.map((action) =>
          JSON.stringify({ type: (action as { type: string }).type, params: (action as { params?: unknown }).params }),
        );
      const [initial, initialActions] = pure.initial(inputs[kind]);
      const [expectedInitial, expectedInitialActions] = initialTransition(machine, inputs[kind] as never);
      expect([initial.value, initial.context, plain(initialActions)]).toEqual([
        expectedInitial.value,
        expectedInitial.context,
        plain(expectedInitialActions),
      ]);
      let compared = 0;
      for (const path of getShortestPaths(machine, options)) {
        for (const event of eventsFor(kind)(path.state)) {
          const [next, actions] = pure.next(path.state, event);
          const [expected, expectedActions] = transition(machine, path.state, event as never);
          expect([next.value, next.context, next.status, plain(actions)]).toEqual([
            expected.value,
            expected.context,
            expected.status,
            plain(expectedActions),
          ]);
          compared += 1;
        }
      }
      expect(compared).toBeGreaterThan(20);
    });

    it('never puts a submitted code into context', () => {
      for (const path of getShortestPaths(machine, options)) {
        expect(JSON.stringify(path.state.context)).not.toContain('975310');
      }
    });
  },
);

describe('the dial-in machine', () => {
  const machine = machines['dial-in'] as AnyStateMachine;
  const started = initialTransition(machine, inputs['dial-in'] as never)[0];
  const dial = (phoneNumber: string, matchHash: string) =>
    transition(machine, started, {
      type: 'dial',
      now: T0,
      phoneNumber,
      matchHash,
      anyHash: 'e'.repeat(32),
    } as never)[0];

  it('is verified only by the right reference from the number it verifies', () => {
    expect(dial('+2348012345678', matchingHash).value).toBe('verified');
    expect(dial('+2348037654321', matchingHash).value).toBe('awaiting-dial');
    expect(dial('+2348012345678', 'b'.repeat(32)).value).toBe('awaiting-dial');
  });

  it('records the number that dialled in "who is this" mode, where the reference alone counts', () => {
    const { phoneNumber: _omitted, ...anyone } = inputs['dial-in'];
    const open = initialTransition(machine, { ...anyone, referenceHash: 'e'.repeat(32) } as never)[0];
    const event = { type: 'dial', now: T0, phoneNumber: '+2348037654321', matchHash: 'x', anyHash: 'e'.repeat(32) };
    const [verified] = transition(machine, open, event as never);
    expect([verified.value, verified.context.phoneNumber, verified.context.ussdCode]).toEqual([
      'verified',
      '+2348037654321',
      undefined,
    ]);
    expect(transition(machine, open, { ...event, anyHash: 'f'.repeat(32) } as never)[0].value).toBe('awaiting-dial');
  });
});
