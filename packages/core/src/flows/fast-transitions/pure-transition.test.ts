import { getShortestPaths } from 'xstate/graph';
import { createActor, initialTransition, transition, type AnyStateMachine } from 'xstate';
import { describe, expect, it } from 'vitest';
import {
  eventsFor,
  identityLadderInputs,
  inputs,
  machines,
  phoneInboundInput,
  phoneInboundWalk,
  walkOptions,
} from '../machine-walk.fixtures.js';
import { compileFlatTransitions, createPureTransitions } from './pure-transition.js';

describe.each(['ussd', 'phone', 'identity', 'dial-in'] as const)(
  'the pure transitions of the %s machine, against xstate on every generated state and event',
  (kind) => {
    const machine = machines[kind] as AnyStateMachine;

    const walked =
      kind === 'identity'
        ? identityLadderInputs
        : kind === 'phone'
          ? [inputs.phone, phoneInboundInput]
          : [inputs[kind]];
    it.each(walked as unknown[])(
      "createPureTransitions (one shared scope) gives exactly what xstate's transition() gives, on every generated state and event (input %#)",
      (input) => {
        // A plan's inbound step is walked from `awaiting-message`, where the engine resolves such a flow.
        const options = input === phoneInboundInput ? phoneInboundWalk() : walkOptions(kind, input);
        const pure = createPureTransitions(machine);
        const plain = (actions: unknown[]) =>
          actions.map((action) =>
            JSON.stringify({
              type: (action as { type: string }).type,
              params: (action as { params?: unknown }).params,
            }),
          );
        const [initial, initialActions] = pure.initial(input);
        const [expectedInitial, expectedInitialActions] = initialTransition(machine, input as never);
        expect([initial.toJSON(), plain(initialActions)]).toEqual([
          expectedInitial.toJSON(),
          plain(expectedInitialActions),
        ]);
        // Made without xstate's getInitialSnapshot, except where the machine starts in a router (the identity ladder).
        const flat = compileFlatTransitions(machine, createActor(machine));
        expect(flat?.initial(input) === undefined).toBe(kind === 'identity');
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
      },
    );
  },
);
