/**
 * Renders an XState v5 machine as a Mermaid `stateDiagram-v2`, read from the machine's own state
 * nodes, so a diagram built from it cannot drift from the definition.
 *
 * Only the structure the verikit flows use is supported: one level of states under the root, with
 * transitions on the states and on the root (a root transition applies in every state that is not
 * final). Nested or parallel states are refused with an error rather than drawn wrongly.
 */

/** The parts of an XState guard this renderer reads: a name, `{ type }`, or `and`/`or`/`not` of guards. */
type GuardLike = string | { type: string } | ((...args: never[]) => unknown) | undefined;

/** The parts of an XState transition definition this renderer reads. */
interface TransitionLike {
  readonly eventType: string;
  readonly target?: ReadonlyArray<{ readonly key: string; readonly parent?: unknown }>;
  readonly guard?: GuardLike;
}

/** The parts of an XState state node this renderer reads. */
export interface StateNodeLike {
  readonly key: string;
  readonly type: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
  readonly states: Readonly<Record<string, StateNodeLike>>;
  readonly transitions: ReadonlyMap<string, readonly TransitionLike[]>;
  readonly always?: readonly TransitionLike[];
  readonly initial?: { readonly target: ReadonlyArray<{ readonly key: string }> };
}

/** The parts of an XState machine this renderer reads: `machine.root`. */
export interface MachineLike {
  readonly root: StateNodeLike;
}

/** One edge of the diagram, in the order XState tries transitions. */
export interface DiagramEdge {
  readonly from: string;
  readonly to: string;
  readonly label: string;
}

/** A guard as text: `isAwaitedEffect`, `isAwaitedEffect and codeValid`, `not expired`. */
export function guardLabel(guard: GuardLike): string | undefined {
  if (guard === undefined) return undefined;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') {
    const parts = (guard as { guards?: GuardLike[] }).guards;
    if (Array.isArray(parts) && (guard.name === 'and' || guard.name === 'or'))
      return parts.map((part) => wrap(guardLabel(part))).join(` ${guard.name} `);
    if (Array.isArray(parts) && guard.name === 'not' && parts.length === 1) return `not ${wrap(guardLabel(parts[0]))}`;
    return guard.name || 'inline guard';
  }
  return guard.type;
}

function wrap(label: string | undefined): string {
  return label === undefined ? 'true' : /\s/.test(label) ? `(${label})` : label;
}

/** `xstate.after.30000.phone.sending` → `after 30000 ms`; other events keep their type. */
function eventLabel(eventType: string): string {
  const delayed = /^xstate\.after\.(\d+)\./.exec(eventType);
  return delayed ? `after ${delayed[1]} ms` : eventType;
}

/**
 * Labels of one event's transitions, in priority order: `event [guard]`; an unguarded transition
 * after guarded ones is taken only when they all fail, so it reads `event [else]`.
 */
function labelsOf(eventType: string, transitions: readonly TransitionLike[]): string[] {
  return transitions.map((transition, index) => {
    const guard = guardLabel(transition.guard);
    const event = eventLabel(eventType);
    if (guard !== undefined) return `${event} [${guard}]`;
    return index > 0 ? `${event} [else]` : event;
  });
}

function checkSupported(root: StateNodeLike): void {
  for (const node of Object.values(root.states)) {
    if (node.type !== 'atomic' && node.type !== 'final') {
      throw new Error(`state "${node.key}" is ${node.type}: the diagram renderer draws only flat machines`);
    }
  }
}

/** The edges of a flat machine, state by state in definition order, then the final states' exits. */
export function diagramEdges(machine: MachineLike): DiagramEdge[] {
  const { root } = machine;
  checkSupported(root);
  const edges: DiagramEdge[] = [];
  for (const target of root.initial?.target ?? []) edges.push({ from: '[*]', to: target.key, label: '' });
  for (const node of Object.values(root.states)) {
    if (node.type === 'final') continue;
    const own = new Map<string, readonly TransitionLike[]>(node.transitions);
    if (node.always?.length) own.set('always', node.always);
    // Root transitions apply here unless this state has an unguarded transition for the same event.
    for (const [eventType, transitions] of root.transitions) {
      const shadowed = own.get(eventType)?.some((transition) => transition.guard === undefined) ?? false;
      if (!shadowed) own.set(eventType, [...(own.get(eventType) ?? []), ...transitions]);
    }
    for (const [eventType, transitions] of own) {
      const labels = labelsOf(eventType, transitions);
      transitions.forEach((transition, index) => {
        // A transition without a target stays in the state (it may still change the context).
        const targets = transition.target?.length ? transition.target.map((target) => target.key) : [node.key];
        for (const to of targets) edges.push({ from: node.key, to, label: labels[index]! });
      });
    }
  }
  for (const node of Object.values(root.states))
    if (node.type === 'final') edges.push({ from: node.key, to: '[*]', label: '' });
  return edges;
}

/** A Mermaid id for a state key: `awaiting-code` → `awaiting_code`. */
function mermaidId(key: string): string {
  return key === '[*]' ? key : key.replace(/[^A-Za-z0-9_]/g, '_');
}

/** Mermaid treats `:` and `;` in labels as syntax. */
function mermaidLabel(label: string): string {
  return label.replace(/[:;]/g, ' ');
}

/** The machine as a Mermaid `stateDiagram-v2`, without the code fence. */
export function renderStateDiagram(machine: MachineLike): string {
  const lines = ['stateDiagram-v2'];
  for (const node of Object.values(machine.root.states)) {
    const id = mermaidId(node.key);
    if (id !== node.key) lines.push(`  state "${node.key}" as ${id}`);
  }
  for (const edge of diagramEdges(machine)) {
    const arrow = `  ${mermaidId(edge.from)} --> ${mermaidId(edge.to)}`;
    lines.push(edge.label ? `${arrow} : ${mermaidLabel(edge.label)}` : arrow);
  }
  return lines.join('\n');
}
