import {
  createActor,
  type AnyActorRef,
  type AnyActorScope,
  type AnyMachineSnapshot,
  type AnyStateMachine,
} from 'xstate';

/** A machine's next snapshot and the actions it asks for, which nothing has executed. */
export type PureStep = [snapshot: AnyMachineSnapshot, actions: unknown[]];

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
  const initial = (input: unknown) => step(() => machine.getInitialSnapshot(scope, input));
  return {
    initial: flat ? (input) => flat.initial(input) ?? initial(input) : initial,
    next: flat ? (snapshot, event) => flat.step(snapshot, event as { type: string }) ?? next(snapshot, event) : next,
    resolve: (value, context) =>
      flat?.resolve(value, context) ?? machine.resolveState({ value: value as string, context }),
  };
}

// A flat machine (all of ours) steps without xstate's macrostep: its transitions are read from the machine once and
// replayed in xstate's order (docs/decisions/1201-flat-transitions-from-the-machine.md).
type AnyStateNode = AnyStateMachine['root'];
type Args = { context: Record<string, unknown>; event: { type: string } };
/** A guard or an action as a machine config names it: by name, by `{ type, params }`, or inline. */
type Reference = string | { type: string; params?: unknown } | ((...args: never[]) => unknown);
/** What `assign(...)` makes: a function with the assignment on it. */
type AssignAction = { type: 'xstate.assign'; assignment: unknown; resolve: unknown };
/** A builtin guard (`and`, `or`, `not`): it evaluates itself. */
type BuiltinGuard = ((...args: never[]) => unknown) & {
  check: (snapshot: AnyMachineSnapshot, args: Args, guard: unknown) => boolean;
};

interface Transition {
  readonly guard: Reference | undefined;
  readonly target: AnyStateNode | undefined;
  /** True when the source is exited and the target entered (a target other than the source, or `reenter`). */
  readonly moves: boolean;
  /** Exit actions of the source, the transition's actions, entry actions of the target, in xstate's order. */
  readonly actions: readonly Reference[];
  /** Whether xstate's `can` counts it: a target, or actions of the transition's own (a forbidden one has neither). */
  readonly allowed: boolean;
}

/** One machine's flat steps, and its snapshots made without xstate's resolution. */
export interface FlatTransitions {
  /** The initial snapshot and its actions; undefined when xstate must make it (a router, a final state, a throw). */
  initial(input: unknown): PureStep | undefined;
  /** The next snapshot and actions; undefined for what xstate must step (a snapshot not active, xstate's events). */
  step(snapshot: AnyMachineSnapshot, event: { type: string }): PureStep | undefined;
  /** `machine.resolveState({ value, context })` for a state of the machine; undefined for any other value. */
  resolve(value: unknown, context: Record<string, unknown>): AnyMachineSnapshot | undefined;
}

/**
 * xstate's `transition(machine, snapshot, event)` for a flat machine, without its macrostep: the transitions of
 * each state by event type are read from the machine once, and a step evaluates the guards, applies the assigns
 * and collects the other actions in the order xstate does; the next snapshot is the machine's own `resolveState` of
 * the target, made once per state, with the new context (docs/decisions/1201-flat-transitions-from-the-machine.md). A step returns undefined for a
 * snapshot that is not active and for xstate's own events: xstate takes those.
 *
 * Flat means what our flow machines are: atomic and final states under the root, and only `on` transitions (at most
 * one target, a sibling), guards, `assign` and plain actions. Returns undefined for any other machine (nested or
 * parallel states, `always`, `after`, `invoke`, wildcard events, root transitions, other builtin actions): the caller
 * then uses xstate's macrostep. flat-transitions.test.ts checks the steps equal xstate's on random event sequences
 * of every flow kind.
 */
export function compileFlatTransitions(machine: AnyStateMachine, self: AnyActorRef): FlatTransitions | undefined {
  const root = machine.root as AnyStateNode;
  if (!flatRoot(root)) return undefined;
  const router = routerOf(root);
  const table = new Map<string, Map<string, Transition[]>>();
  for (const state of Object.values(root.states)) {
    // The initial router is only passed through by xstate's initial snapshot: never stored, never stepped.
    if (state === router) continue;
    const byType = new Map<string, Transition[]>();
    for (const [type, candidates] of state.transitions) {
      if (type.includes('*')) return undefined;
      const compiled: Transition[] = [];
      for (const candidate of candidates) {
        const targets = candidate.target ?? [];
        const target = targets[0];
        if (targets.length > 1 || (target !== undefined && (target.parent !== root || target === router)))
          return undefined;
        // A target other than the source, or the source re-entered, exits the source and enters the target.
        const moves = target !== undefined && (target !== state || candidate.reenter);
        const actions = [
          ...(moves ? state.exit : []),
          ...candidate.actions,
          ...(moves ? target.entry : []),
        ] as Reference[];
        if (!actions.every((action) => supportedAction(machine, action))) return undefined;
        const allowed = target !== undefined || candidate.actions.length > 0;
        compiled.push({ guard: candidate.guard as Reference | undefined, target, moves, actions, allowed });
      }
      byType.set(type, compiled);
    }
    table.set(state.key, byType);
  }
  /** The transition xstate takes for `event`: the first candidate whose guard passes (a guard that throws, throws). */
  const chosenFor = (snapshot: AnyMachineSnapshot, state: Map<string, Transition[]>, event: { type: string }) => {
    const context = snapshot.context as Record<string, unknown>;
    return state
      .get(event.type)
      ?.find(
        (candidate) => candidate.guard === undefined || evaluateGuard(candidate.guard, { context, event }, snapshot),
      );
  };
  /** xstate's `snapshot.can(event)` from the table: the transition xstate would take is not a forbidden one. */
  function can(this: AnyMachineSnapshot, event: { type: string }): boolean {
    const state = table.get(this.value as string);
    return state === undefined ? false : chosenFor(this, state, event)?.allowed === true;
  }
  // Each state's snapshot as the machine resolves it (its nodes, tags, status), to copy with a step's context; its
  // `can` reads the table instead of xstate's resolution of the event (the view asks it of every user event).
  const templates = new Map(
    Object.keys(root.states)
      .filter((key) => root.states[key] !== router)
      .map((key) => [key, { ...machine.resolveState({ value: key, context: {} }), can }]),
  );
  const spawn = () => {
    throw new Error('a flat machine spawns no actor');
  };
  const resolveState = (value: unknown, context: Record<string, unknown>) => {
    const template = typeof value === 'string' ? templates.get(value) : undefined;
    return template === undefined ? undefined : ({ ...template, context } as AnyMachineSnapshot);
  };
  /** Applies the assigns of `actions` to `context` in order, and collects the others as xstate does. */
  const run = (actions: readonly Reference[], context: Record<string, unknown>, event: { type: string }) => {
    let next = context;
    const collected: unknown[] = [];
    for (const action of actions) {
      const implementation = resolve(machine.implementations.actions, action) as
        | (((...args: never[]) => unknown) & Partial<AssignAction>)
        | undefined;
      const info = { context: next, event, self, system: self.system };
      const params = paramsOf(action, { context: next, event });
      if (implementation?.type === 'xstate.assign') {
        // xstate's own assign, `Object.assign({}, context, changes)` (decision 1930).
        const args = { context: next, event, self, system: self.system, spawn };
        next = merged(next, assigned(implementation.assignment, args, params));
        continue;
      }
      collected.push({
        type: typeof action === 'function' ? action.name || '(anonymous)' : typeOf(action),
        info,
        params,
        exec: implementation,
      });
    }
    return [next, collected] as const;
  };
  // The initial snapshot without xstate's macrostep, when the machine starts in an atomic state of its own (no
  // router, no final state, nothing on the initial transition): the context factory, then the state's entry.
  const first = router === undefined ? (root.initial?.target?.[0] as AnyStateNode | undefined) : undefined;
  const entry =
    first?.type === 'atomic' &&
    first.parent === root &&
    (root.initial?.actions.length ?? 0) === 0 &&
    (first.entry as Reference[]).every((action) => supportedAction(machine, action))
      ? (first.entry as Reference[])
      : undefined;
  const factory = (machine.config as { context?: unknown }).context;
  const initial = (input: unknown): PureStep | undefined => {
    if (first === undefined || entry === undefined) return undefined;
    const event = { type: 'xstate.init', input };
    let context: Record<string, unknown>;
    try {
      // As xstate: a factory's result assigned onto `{}`; a context object as it is.
      context =
        typeof factory === 'function'
          ? Object.assign({}, (factory as (args: unknown) => Record<string, unknown>)({ spawn, input, self }))
          : ((factory as Record<string, unknown> | undefined) ?? {});
      const [next, collected] = run(entry, context, event);
      return [resolveState(first.key, next)!, collected];
    } catch {
      // xstate makes an error snapshot of a throw: it is asked instead.
      return undefined;
    }
  };
  const step = (snapshot: AnyMachineSnapshot, event: { type: string }): PureStep | undefined => {
    const state = typeof snapshot.value === 'string' ? table.get(snapshot.value) : undefined;
    // Anything else (a done snapshot, xstate's own events) is left to xstate.
    if (snapshot.status !== 'active' || state === undefined || event.type.startsWith('xstate.')) return undefined;
    const context = snapshot.context as Record<string, unknown>;
    const chosen = chosenFor(snapshot, state, event);
    if (chosen === undefined) return [snapshot, []];
    const [next, collected] = run(chosen.actions, context, event);
    // Same state, same context: xstate hands back the snapshot it was given.
    if (!chosen.moves && next === context) return [snapshot, collected];
    // A snapshot is a plain object: the machine's own snapshot of the target state, with the new context.
    return [resolveState(chosen.target === undefined ? snapshot.value : chosen.target.key, next)!, collected];
  };
  return { initial, step, resolve: resolveState };
}

/**
 * The initial state when it only routes: `always` transitions and nothing else (no `on`, entry, exit, timers). The
 * initial snapshot passes through it (xstate resolves it), so no snapshot is ever in it; a flow whose first state
 * depends on its input (an identity ladder's first step) starts this way.
 */
function routerOf(root: AnyStateNode): AnyStateNode | undefined {
  const initial = root.initial?.target?.[0] as AnyStateNode | undefined;
  if (initial === undefined || initial.always === undefined) return undefined;
  const routes =
    initial.type === 'atomic' &&
    initial.transitions.size === 0 &&
    initial.entry.length === 0 &&
    initial.exit.length === 0 &&
    initial.after.length === 0 &&
    initial.invoke.length === 0;
  return routes ? initial : undefined;
}

/** True when the root is a compound state whose children are atomic or final, with nothing but `on` transitions. */
function flatRoot(root: AnyStateNode): boolean {
  const router = routerOf(root);
  const plain = (node: AnyStateNode) =>
    (node === router || node.always === undefined) && node.after.length === 0 && node.invoke.length === 0;
  return (
    root.type === 'compound' &&
    plain(root) &&
    root.transitions.size === 0 &&
    root.entry.length === 0 &&
    root.exit.length === 0 &&
    Object.values(root.states).every(
      (state) => (state.type === 'atomic' || (state.type === 'final' && state.exit.length === 0)) && plain(state),
    )
  );
}

/** An assign (named, inline or `{ type, params }`) or a plain action; not raise, sendTo, spawn, enqueue and the like. */
function supportedAction(machine: AnyStateMachine, action: Reference): boolean {
  const implementation = resolve(machine.implementations.actions, action) as
    | ({ resolve?: unknown } & Partial<AssignAction>)
    | undefined;
  if (implementation === undefined) return typeof action !== 'function';
  return !('resolve' in implementation) || implementation.type === 'xstate.assign';
}

function typeOf(reference: Exclude<Reference, (...args: never[]) => unknown>): string {
  return typeof reference === 'string' ? reference : reference.type;
}

/** The implementation a reference names (an inline one is its own). */
function resolve(implementations: Record<string, unknown>, reference: Reference): unknown {
  return typeof reference === 'function' ? reference : implementations[typeOf(reference)];
}

/** A reference's params, as xstate resolves them: none for a name or an inline function. */
function paramsOf(reference: Reference, args: Args): unknown {
  if (typeof reference !== 'object' || !('params' in reference)) return undefined;
  return typeof reference.params === 'function'
    ? (reference.params as (args: Args) => unknown)(args)
    : reference.params;
}

/**
 * `Object.assign({}, context, changes)`, made the fastest way on node 20's V8 (decision 1930): when `changes` adds no
 * key, a spread of `context` copies its shape at once, where `Object.assign({}, …)` adds its keys one by one (a
 * flow's context has 18: 11–13% of a committed event's CPU on Redis in its profile, 3–4% with the spread); when it
 * adds keys, the spread's copy would take each new one slowly (decision 1770), and `Object.assign({}, …)` is the
 * fast one.
 */
function merged(context: Record<string, unknown>, changes: Record<string, unknown>): Record<string, unknown> {
  for (const key in changes) if (!(key in context)) return Object.assign({}, context, changes);
  return Object.assign({ ...context }, changes);
}

/** The context changes of an assignment: a function of the args, or an object of values and functions. */
function assigned(assignment: unknown, args: Args & Record<string, unknown>, params: unknown): Record<string, unknown> {
  if (typeof assignment === 'function') return assignment(args, params) as Record<string, unknown>;
  const partial: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(assignment as Record<string, unknown>))
    partial[key] = typeof value === 'function' ? (value as (a: Args, p: unknown) => unknown)(args, params) : value;
  return partial;
}

/** xstate's guard evaluation: a named, `{ type, params }` or inline guard; builtin ones (`and`…) check themselves. */
function evaluateGuard(guard: Reference, args: Args, snapshot: AnyMachineSnapshot): boolean {
  const implementation = resolve(snapshot.machine.implementations.guards, guard);
  if (implementation === undefined) throw new Error(`Guard '${typeOf(guard as never)}' is not implemented.`);
  if (typeof implementation !== 'function') return evaluateGuard(implementation as Reference, args, snapshot);
  if ('check' in implementation) return (implementation as BuiltinGuard).check(snapshot, args, implementation);
  const params = typeof guard === 'function' ? undefined : paramsOf(guard, args);
  return Boolean((implementation as (args: Args, params: unknown) => unknown)(args, params));
}
