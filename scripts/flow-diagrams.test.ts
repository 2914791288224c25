import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { flowDiagramMachines, flowsDocPath, generateFlowDiagrams } from './flow-diagrams-markdown.js';
import { diagramEdges, renderStateDiagram, type MachineLike } from './state-diagram.js';

describe('docs/flows.md', () => {
  it('has the diagrams of the current machine definitions', () => {
    const committed = readFileSync(flowsDocPath, 'utf8');
    const regenerated = generateFlowDiagrams(committed, flowDiagramMachines());
    expect(
      regenerated === committed,
      'docs/flows.md is out of date with the flow machines: run `pnpm diagrams` and commit the result',
    ).toBe(true);
  });
});

type Node = MachineLike['root'];
type Transition = { eventType: string; target?: Array<{ key: string }>; guard?: unknown };

/** A state node shaped as XState v5 builds one (the scripts cannot import xstate: it is core's dependency). */
function node(
  key: string,
  type: Node['type'],
  on: Record<string, Array<Omit<Transition, 'eventType'>>> = {},
  extra: Partial<Node> = {},
): Node {
  const transitions = new Map(
    Object.entries(on).map(([eventType, list]) => [
      eventType,
      list.map((transition) => ({ eventType, ...transition })),
    ]),
  );
  return { key, type, states: {}, transitions, ...extra } as Node;
}

/** A combined guard as XState's `and`/`not` build it: a function of that name with `guards`. */
function combined(name: 'and' | 'or' | 'not', guards: unknown[]): unknown {
  const guard = { [name]: () => true }[name]!;
  return Object.assign(guard, { guards });
}

const to = (key: string) => [{ key }];
const sample: MachineLike = {
  root: node(
    'sample',
    'compound',
    { cancel: [{ target: to('cancelled') }] },
    {
      initial: { target: to('idle') },
      states: {
        idle: node('idle', 'atomic', { go: [{ guard: 'ready', target: to('busy') }, { target: to('cancelled') }] }),
        'in-between': node(
          'in-between',
          'atomic',
          { cancel: [{ target: to('idle') }], poke: [{}] },
          {
            always: [{ eventType: '', guard: combined('not', ['ready']), target: to('idle') }] as Node['always'],
          },
        ),
        busy: node('busy', 'atomic', {
          done: [{ guard: combined('and', ['ready', 'checked']), target: to('finished') }],
        }),
        finished: node('finished', 'final'),
        cancelled: node('cancelled', 'final'),
      },
    },
  ),
};

describe('renderStateDiagram', () => {
  it('draws every transition with its event and guard, root transitions from every state that is not final', () => {
    expect(diagramEdges(sample)).toEqual([
      { from: '[*]', to: 'idle', label: '' },
      { from: 'idle', to: 'busy', label: 'go [ready]' },
      { from: 'idle', to: 'cancelled', label: 'go [else]' },
      { from: 'idle', to: 'cancelled', label: 'cancel' },
      // The state's own unguarded cancel shadows the root's.
      { from: 'in-between', to: 'idle', label: 'cancel' },
      // A transition without a target stays in the state.
      { from: 'in-between', to: 'in-between', label: 'poke' },
      { from: 'in-between', to: 'idle', label: 'always [not ready]' },
      { from: 'busy', to: 'finished', label: 'done [ready and checked]' },
      { from: 'busy', to: 'cancelled', label: 'cancel' },
      { from: 'finished', to: '[*]', label: '' },
      { from: 'cancelled', to: '[*]', label: '' },
    ]);
  });

  it('declares Mermaid ids for state names Mermaid cannot use as ids', () => {
    const diagram = renderStateDiagram(sample);
    expect(diagram.split('\n').slice(0, 3)).toEqual([
      'stateDiagram-v2',
      '  state "in-between" as in_between',
      '  [*] --> idle',
    ]);
    expect(diagram).toContain('  in_between --> idle : always [not ready]');
  });

  it('refuses nested states rather than drawing them wrongly', () => {
    const nested: MachineLike = {
      root: node(
        'nested',
        'compound',
        {},
        { states: { outer: node('outer', 'compound', {}, { states: { inner: node('inner', 'atomic') } }) } },
      ),
    };
    expect(() => renderStateDiagram(nested)).toThrow(/state "outer" is compound/);
  });
});

describe('the flow machines as XState builds them', () => {
  const { phone, identity } = flowDiagramMachines();

  it('shows combined guards, fallbacks and the root cancel of every state that is not final', () => {
    const edges = diagramEdges(phone);
    expect(edges).toContainEqual({
      from: 'checking',
      to: 'verified',
      label: 'effect-succeeded [isAwaitedEffect and codeValid]',
    });
    expect(edges.filter((edge) => edge.label === 'cancel').map((edge) => edge.from)).toEqual([
      'awaiting-message',
      'sending',
      'send-failed',
      'awaiting-code',
      'checking',
      'expired',
    ]);
    expect(edges.filter((edge) => edge.to === '[*]').map((edge) => edge.from)).toEqual([
      'verified',
      'locked',
      'cancelled',
    ]);
    expect(diagramEdges(identity)).toContainEqual({
      from: 'awaiting-code',
      to: 'awaiting-code',
      label: 'submit-code [else]',
    });
  });
});

describe('generateFlowDiagrams', () => {
  const machines = { sample };
  const doc = 'Intro.\n<!-- diagram:sample:start -->\nstale\n<!-- diagram:sample:end -->\nOutro.\n';

  it('replaces only what lies between the markers, and is stable', () => {
    const once = generateFlowDiagrams(doc, machines);
    expect(once.startsWith('Intro.\n<!-- diagram:sample:start -->\n')).toBe(true);
    expect(once.endsWith('```\n<!-- diagram:sample:end -->\nOutro.\n')).toBe(true);
    expect(once).not.toContain('stale');
    expect(once).toContain(`\`\`\`mermaid\n${renderStateDiagram(sample)}\n\`\`\``);
    expect(generateFlowDiagrams(once, machines)).toBe(once);
  });

  it('refuses a document without the markers, with duplicated or reversed markers, or with markers of no machine', () => {
    expect(() => generateFlowDiagrams('no markers', machines)).toThrow(
      /needs the markers <!-- diagram:sample:start -->/,
    );
    expect(() => generateFlowDiagrams(doc + doc, machines)).toThrow(/more than once/);
    expect(() => generateFlowDiagrams('<!-- diagram:sample:end --><!-- diagram:sample:start -->', machines)).toThrow(
      /before/,
    );
    expect(() =>
      generateFlowDiagrams(`${doc}<!-- diagram:other:start --><!-- diagram:other:end -->`, machines),
    ).toThrow(/"other", which is no flow machine/);
  });
});
