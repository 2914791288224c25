import { createActor, type AnyActorScope, type AnyMachineSnapshot, type AnyStateMachine } from 'xstate';
import { compileFlatTransitions, type PureStep } from './flat-transitions.js';

export type { PureStep } from './flat-transitions.js';

/** The pure transitions of one machine. */
export interface PureTransitions {
  /** Same as xstate's `initialTransition(machine, input)`. */
  initial(input: unknown): PureStep;
  /** Same as xstate's `transition(machine, snapshot, event)`. */
  next(snapshot: AnyMachineSnapshot, event: unknown): PureStep;
  /** Same as `machine.resolveState({ value, context })`: the snapshot of a stored state. */
  resolve(value: unknown, context: Record<string, unknown>): AnyMachineSnapshot;
}

/**
 * xstate's pure `transition()` and `initialTransition()`, with one inert actor scope per machine
 * made once, instead of one per call.
 *
 * xstate builds a throw-away actor for every call (it runs the machine's context factory and
 * allocates an actor system) only to collect the actions into a list: about 140 µs of a call whose
 * transition takes about 15 µs (docs/decisions/0007-one-inert-scope-per-machine.md). Our machines
 * spawn and invoke nothing, and a transition is synchronous, so one scope can serve every call: each
 * call points the scope's action executor at a fresh list. Nothing is executed, exactly as with
 * xstate's functions; pure-transition.test.ts, beside it, checks both give the same snapshots and actions on every
 * generated state and event.
 *
 * `next` on a flat machine (all of ours) skips xstate's macrostep: see `compileFlatTransitions`.
 */
export function createPureTransitions(machine: AnyStateMachine): PureTransitions {
  const self = createActor(machine);
  let collected: unknown[] = [];
  const scope: AnyActorScope = {
    self,
    id: '',
    sessionId: '',
    logger: () => {},
    defer: () => {},
    emit: () => {},
    system: self.system,
    stopChild: () => {},
    actionExecutor: (action) => {
      collected.push(action);
    },
  };
  const step = (run: () => AnyMachineSnapshot): PureStep => {
    collected = [];
    const snapshot = run();
    const actions = collected;
    collected = [];
    return [snapshot, actions];
  };
  const flat = compileFlatTransitions(machine, self);
  const next = (snapshot: AnyMachineSnapshot, event: unknown) =>
    step(() => machine.transition(snapshot, event as never, scope));
  return {
    initial: (input) => step(() => machine.getInitialSnapshot(scope, input)),
    next: flat ? (snapshot, event) => flat.step(snapshot, event as { type: string }) ?? next(snapshot, event) : next,
    resolve: (value, context) =>
      flat?.resolve(value, context) ?? machine.resolveState({ value: value as string, context }),
  };
}
