import { getAdjacencyMap, getShortestPaths } from 'xstate/graph';
import { initialTransition, transition, type AnyMachineSnapshot, type AnyStateMachine, type StateNode } from 'xstate';
import { describe, expect, it } from 'vitest';
import {
  identityLadderInputs,
  inputs,
  machines,
  matchingHash,
  phoneInboundWalk,
  T0,
  walkOptions,
  type Event,
} from './machine-walk.fixtures.js';

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
    const options = walkOptions(kind);
    // The identity machine's ladders are walked each: together they take every transition.
    // The phone machine is walked from its first send and from a plan's inbound step.
    const walks =
      kind === 'identity'
        ? identityLadderInputs.map((input) => walkOptions(kind, input))
        : kind === 'phone'
          ? [options, phoneInboundWalk()]
          : [options];
    // A state that only routes the first snapshot (`always`, nothing else) is never one a snapshot is in.
    const states = (Object.values(machine.root.states) as StateNode[])
      .filter((state) => state.always === undefined)
      .map((state) => state.key);

    it('reaches every state', () => {
      const reached = new Set(
        walks.flatMap((walk) => getShortestPaths(machine, walk).map((path) => String(path.state.value))),
      );
      expect([...reached].sort()).toEqual(states.sort());
    });

    it('takes every declared transition', () => {
      const taken = new Set<string>();
      for (const { state, transitions } of walks.flatMap((walk) => Object.values(getAdjacencyMap(machine, walk)))) {
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
