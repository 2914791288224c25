import {
  assign,
  createActor,
  initialTransition,
  raise,
  setup,
  transition,
  type AnyMachineSnapshot,
  type AnyStateMachine,
} from 'xstate';
import { describe, expect, it } from 'vitest';
import { compileFlatTransitions, createPureTransitions } from './pure-transition.js';
import { flowDefinitions } from '../flow-definitions.js';
import { defaultPolicies } from '../policies.js';
import { seededRandom } from '../../seeded-random.fixtures.js';

// A model-based check: random event sequences, from random contexts in every state of every kind of flow the
// engine runs (a new kind is walked as soon as flowDefinitions holds it), give the same steps as xstate's own
// `transition()`: same state, context, status and actions, and the same snapshot back when nothing changes.

const T0 = 1_000_000;
const hash = 'a'.repeat(32);

function picker(next: () => number) {
  return <T>(...choices: T[]): T => choices[Math.floor(next() * choices.length)]!;
}

/** A context with the fields the flows read, each present or not, near one another in time. */
function randomContext(next: () => number): Record<string, unknown> {
  const pick = picker(next);
  const effectSeq = pick(1, 2, 3);
  const channels = pick(['sms'], ['sms', 'voice'], ['whatsapp', 'sms', 'voice']);
  const context: Record<string, unknown> = {
    flowId: 'flow-model',
    effectSeq,
    sendCount: pick(0, 1, 2, 3),
    attemptsLeft: pick(0, 1, 2, 3),
    phoneNumber: '+2348031234567',
    channel: channels[0],
    channels,
    channelsLeft: pick([], channels.slice(1)),
    requestId: pick(undefined, 'req-1'),
    otpHash: hash,
    numberHash: 'c'.repeat(32),
    idType: 'bvn',
    // The identity ladder's fields: which steps, which one is climbed.
    steps: pick(undefined, ['match', 'consent', 'otp', 'face'], ['face', 'otp', 'match'], ['consent', 'face']),
    stepIndex: pick(0, 1, 2, 3),
  };
  const kind = pick('phone.send', 'identity.match', 'identity.consent-status', 'identity.face');
  if (next() < 0.7) context.effect = { id: `flow-model:effect:${effectSeq}`, kind, deadline: T0 + 100 };
  else if (next() < 0.5) context.unansweredEffectId = `flow-model:effect:${effectSeq}`;
  if (next() < 0.6) context.expiresAt = T0 + pick(50, 200);
  if (next() < 0.6) context.resendAvailableAt = T0 + pick(0, 150);
  if (next() < 0.3) context.error = { code: 'code_invalid', message: 'the code is not correct' };
  return context;
}

/** Every event type a machine declares, and one it does not. */
function eventTypes(machine: AnyStateMachine): string[] {
  const types = new Set<string>(['not-an-event']);
  for (const state of Object.values(machine.root.states)) for (const type of state.transitions.keys()) types.add(type);
  return [...types];
}

function machine(snapshot: AnyMachineSnapshot): AnyStateMachine {
  return snapshot.machine as AnyStateMachine;
}

/** An event of a random declared type, with fields drawn around what the context holds. */
function randomEvent(next: () => number, types: string[], snapshot: AnyMachineSnapshot): Record<string, unknown> {
  const pick = picker(next);
  const context = snapshot.context as { effect?: { id: string }; unansweredEffectId?: string };
  // Mostly an event the current state declares, so that walks take transitions rather than refusals.
  const declared = [...(machine(snapshot).root.states[String(snapshot.value)]?.transitions.keys() ?? [])];
  const event: Record<string, unknown> = {
    type: declared.length > 0 && next() < 0.8 ? pick(...declared) : pick(...types),
    now: T0 + pick(0, 49, 50, 99, 100, 149, 150, 199, 200, 10_000),
    effectId: pick(context.effect?.id, context.effect?.id, context.unansweredEffectId, 'flow-model:effect:99'),
  };
  const maybe = (key: string, ...values: unknown[]) => {
    if (next() < 0.5) event[key] = pick(...values);
  };
  maybe(
    'result',
    { requestId: 'req-2', valid: true, sentBy: 'other' },
    { requestId: 'req-2', valid: false },
    { valid: false, reason: pick('expired', 'attempts-exhausted', 'not-pending') },
    { otp: '1234', ussdCode: '*384*1#' },
    { outcome: 'passed', by: 'other', fields: { lastName: true }, otpHash: hash },
    { outcome: 'failed', errorCode: 'face_mismatch', errorMessage: 'not the person' },
    { outcome: 'consent-requested', reference: 'consent-1', url: 'https://consent.test/1' },
    { outcome: 'pending' },
    {},
  );
  if (event.result === undefined && String(event.type).startsWith('effect-succeeded')) event.result = {};
  maybe(
    'error',
    { code: 'provider_unavailable', message: 'down' },
    { code: 'provider_rejected', message: 'refused' },
    { code: 'outcome_unknown', message: 'late' },
  );
  if (event.error === undefined && event.type === 'effect-failed')
    event.error = { code: 'provider_rejected', message: 'refused' };
  if (next() < 0.7) event.provablyUnsent = pick(true, true, false);
  if (next() < 0.25) event.fallback = false;
  maybe('requestId', 'req-1', 'req-older');
  maybe('channel', 'sms', 'voice', 'whatsapp');
  maybe('code', '975310');
  maybe('codeHash', hash, 'b'.repeat(32));
  maybe('otpHash', hash, 'b'.repeat(32));
  maybe('status', 'success', 'failed');
  return event;
}

type Step = readonly [AnyMachineSnapshot, unknown[]];

/** What a step is compared on: the snapshot's state, context and status, the actions' types and params. */
function comparable(before: AnyMachineSnapshot, [snapshot, actions]: Step) {
  const types = eventTypes(snapshot.machine as AnyStateMachine);
  return {
    unchanged: snapshot === before,
    json: snapshot.toJSON(),
    can: types.map((type) => {
      try {
        return snapshot.can({ type, now: T0, effectId: 'flow-model:effect:1' } as never);
      } catch {
        return 'threw';
      }
    }),
    value: snapshot.value,
    context: snapshot.context,
    status: snapshot.status,
    actions: actions.map((action) => {
      const { type, params } = action as { type: string; params?: unknown };
      return { type, params };
    }),
  };
}

function outcome(run: () => Step, before: AnyMachineSnapshot) {
  try {
    return comparable(before, run());
  } catch {
    // xstate words a guard's error its own way: that both throw is what must agree.
    return { threw: true };
  }
}

const policySets = {
  small: { ...defaultPolicies, maxAttempts: 2, maxSendsPerFlow: 2, resendCooldownMs: 100 },
  default: defaultPolicies,
};

describe.each(Object.values(flowDefinitions).map((definition) => [definition.kind, definition] as const))(
  'the %s machine: its flat transitions',
  (_kind, definition) => {
    it.each(Object.entries(policySets))(
      "equal xstate's transition() on random event sequences (%s policies)",
      (_policies, policies) => {
        const machine = definition.createMachine(policies);
        const pure = createPureTransitions(machine);
        expect(compileFlatTransitions(machine, createActor(machine))).toBeDefined();
        const types = eventTypes(machine);
        let steps = 0;
        const movedFrom = new Set<string>();
        for (let seed = 1; seed <= 400; seed += 1) {
          const next = seededRandom(seed);
          const states = Object.keys(machine.root.states);
          const value = picker(next)(...states);
          const context = randomContext(next);
          let snapshot = machine.resolveState({ value, context });
          // A stored state restored without xstate's resolution (its `can` read from the table) is the same snapshot.
          const restored = pure.resolve(value, context);
          expect(comparable(restored, [restored, []]), `seed ${seed}, restored ${value}`).toEqual(
            comparable(snapshot, [snapshot, []]),
          );
          if (seed % 2 === 0) snapshot = restored;
          for (let step = 0; step < 25 && snapshot.status === 'active'; step += 1) {
            const event = randomEvent(next, types, snapshot);
            const expected = outcome(() => transition(machine, snapshot, event as never), snapshot);
            const actual = outcome(() => pure.next(snapshot, event), snapshot);
            expect(actual, `seed ${seed}, step ${step}, ${String(snapshot.value)} + ${JSON.stringify(event)}`).toEqual(
              expected,
            );
            if ('threw' in expected) break;
            steps += 1;
            if (!expected.unchanged) movedFrom.add(String(snapshot.value));
            snapshot = pure.next(snapshot, event)[0];
          }
        }
        // The sequences must exercise the machine, not only refusals: many steps, and a change out of every state
        // that is not final (a small machine such as dial-in has few states to start from, so no fixed count).
        const live = Object.entries(machine.root.states).filter(([, node]) => node.type !== 'final');
        expect(steps).toBeGreaterThan(50 * live.length);
        expect([...movedFrom].sort()).toEqual(live.map(([name]) => name).sort());
      },
    );
  },
);

describe('compileFlatTransitions', () => {
  const leaf = setup({ actions: { note: () => {} } });

  it('compiles no machine it does not fully handle: xstate then steps it, as before', () => {
    const nested = leaf.createMachine({
      initial: 'a',
      states: { a: { initial: 'x', states: { x: { on: { go: 'y' } }, y: {} } } },
    });
    const eventless = leaf.createMachine({
      initial: 'a',
      states: { a: { on: { go: 'b' } }, b: { always: { target: 'c' } }, c: {} },
    });
    // An initial router that a transition leads back to would be stored in it: refused.
    const reentered = leaf.createMachine({
      initial: 'a',
      states: { a: { always: { target: 'b' } }, b: { on: { go: 'a' } } },
    });
    const delayed = leaf.createMachine({ initial: 'a', states: { a: { after: { 10: 'b' } }, b: {} } });
    const wildcard = leaf.createMachine({ initial: 'a', states: { a: { on: { '*': 'b' } }, b: {} } });
    const raising = leaf.createMachine({
      initial: 'a',
      states: { a: { on: { go: { target: 'b', actions: 'note' } } }, b: { entry: raise({ type: 'go' }) } },
    });
    const plain = leaf.createMachine({
      initial: 'a',
      states: { a: { on: { go: { target: 'b', actions: 'note' } } }, b: {} },
    });
    for (const machine of [nested, eventless, delayed, wildcard, raising, reentered]) {
      expect(compileFlatTransitions(machine, createActor(machine))).toBeUndefined();
      const start = machine.resolveState({ value: machine === reentered ? 'b' : 'a', context: {} });
      expect(comparable(start, createPureTransitions(machine).next(start, { type: 'go' }))).toEqual(
        comparable(start, transition(machine, start, { type: 'go' } as never)),
      );
    }
    expect(compileFlatTransitions(plain, createActor(plain))).toBeDefined();
  });

  it('compiles a machine whose initial state only routes (`always`), and steps from where it routed to as xstate does', () => {
    const routed = leaf.createMachine({
      context: ({ input }) => ({ first: (input as { first?: string } | undefined)?.first ?? 'c' }),
      initial: 'route',
      states: {
        route: {
          always: [
            { guard: ({ context }) => (context as { first: string }).first === 'b', target: 'b' },
            { target: 'c' },
          ],
        },
        b: { on: { go: { target: 'c', actions: 'note' } } },
        c: { on: { go: 'b' } },
      },
    });
    const flat = compileFlatTransitions(routed, createActor(routed));
    expect(flat).toBeDefined();
    expect(flat!.resolve('route', {})).toBeUndefined();
    const pure = createPureTransitions(routed);
    for (const first of ['b', 'c']) {
      const [start] = pure.initial({ first });
      expect(start.value).toBe(first);
      expect(comparable(start, pure.next(start, { type: 'go' }))).toEqual(
        comparable(start, transition(routed, start, { type: 'go' } as never)),
      );
    }
  });

  it("makes the initial snapshot of a machine that starts in a state of its own as xstate's initialTransition does, and leaves a router or a final state to xstate", () => {
    const noteOf = { type: 'note', params: ({ context }: { context: { n: number } }) => context.n } as never;
    const counted = setup({
      actions: { note: () => {}, bump: assign(({ context }) => ({ n: (context as { n: number }).n + 1 })) },
    });
    const machine = counted.createMachine({
      context: ({ input }) => ({ n: (input as { n: number }).n }),
      initial: 'a',
      states: { a: { entry: [noteOf, 'bump', noteOf], on: { go: 'b' } }, b: {} },
    });
    const flat = compileFlatTransitions(machine, createActor(machine));
    const started = flat!.initial({ n: 1 });
    expect(started).toBeDefined();
    const [expected, expectedActions] = initialTransition(machine, { n: 1 });
    expect(comparable(expected, started!)).toEqual({
      ...comparable(expected, [expected, expectedActions]),
      unchanged: false,
    });
    expect(started![1].map((action) => (action as { params: unknown }).params)).toEqual([1, 2]);
    // A factory that throws: xstate's error snapshot, not a throw.
    expect(flat!.initial(undefined)).toBeUndefined();
    expect(createPureTransitions(machine).initial(undefined)[0].status).toBe('error');
    const final = leaf.createMachine({ initial: 'done', states: { done: { type: 'final' } } });
    expect(compileFlatTransitions(final, createActor(final))!.initial(undefined)).toBeUndefined();
    const routed = leaf.createMachine({ initial: 'route', states: { route: { always: 'b' }, b: {} } });
    expect(compileFlatTransitions(routed, createActor(routed))!.initial(undefined)).toBeUndefined();
  });

  it('answers `can` as xstate does: a forbidden transition (no target, no action) and a failed guard are no', () => {
    const machine = leaf.createMachine({
      initial: 'a',
      states: {
        a: {
          on: {
            forbidden: {},
            note: { actions: 'note' },
            go: 'b',
            refused: { guard: () => false, target: 'b' },
            second: [{ guard: () => false, target: 'b' }, {}],
          },
        },
        b: { type: 'final' },
      },
    });
    const pure = createPureTransitions(machine);
    for (const value of ['a', 'b']) {
      const ours = pure.resolve(value, {});
      const theirs = machine.resolveState({ value, context: {} });
      for (const type of ['forbidden', 'note', 'go', 'refused', 'second', 'unknown'])
        expect(ours.can({ type } as never), `${value} ${type}`).toBe(theirs.can({ type } as never));
    }
    expect(['forbidden', 'note', 'go'].map((type) => pure.resolve('a', {}).can({ type } as never))).toEqual([
      false,
      true,
      true,
    ]);
  });

  it('runs exit, transition and entry actions in order, with each assign seen by the next', () => {
    const noteOf = { type: 'note', params: ({ context }: { context: { n: number } }) => context.n } as never;
    const machine = setup({
      types: {} as { context: { n: number; log: string[] } },
      actions: { note: () => {} },
    }).createMachine({
      context: { n: 0, log: [] },
      initial: 'a',
      states: {
        a: {
          exit: [assign({ n: ({ context }) => context.n + 1 }), noteOf],
          on: {
            go: { target: 'b', actions: [assign({ n: ({ context }) => context.n * 10 })] },
            stay: { actions: 'note' },
            again: { target: 'a', reenter: true },
            self: { target: 'a' },
          },
        },
        b: { entry: noteOf },
      },
    });
    const pure = createPureTransitions(machine);
    const start = machine.resolveState({ value: 'a', context: { n: 1, log: [] } });
    for (const type of ['go', 'stay', 'again', 'self', 'unknown']) {
      expect(
        outcome(() => pure.next(start, { type }), start),
        type,
      ).toEqual(outcome(() => transition(machine, start, { type } as never), start));
    }
    expect(comparable(start, pure.next(start, { type: 'go' })).actions).toEqual([
      { type: 'note', params: 2 },
      { type: 'note', params: 20 },
    ]);
  });
});
