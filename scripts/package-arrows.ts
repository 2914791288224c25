/**
 * Which workspace package may depend on which: the one table of dependency arrows, and the checks that
 * hold every package.json to it (docs/decisions/0602-package-arrows.md). Run by
 * scripts/package-arrows.test.ts.
 *
 * @module
 */

/** One row of the table: the package's tier and the workspace packages its runtime code may depend on. */
export interface ArrowRow {
  /** Lower tiers sit under higher ones; a devDependency may point to a package of the same or a lower tier. */
  readonly tier: number;
  /** What `dependencies` and `peerDependencies` may name among our packages. */
  readonly dependsOn: readonly string[];
}

const provider = '@verikit/provider';
const providerUtils = '@verikit/provider-utils';
const core = '@verikit/core';
/**
 * The provider packages, one per service: the one list of them. A new packages/<provider> is added here; the rule
 * below then keeps it apart from every other provider.
 */
export const providerPackages: readonly string[] = [
  '@verikit/gateway',
  '@verikit/termii',
  '@verikit/twilio',
  '@verikit/africastalking',
  '@verikit/smile-id',
  '@verikit/dojah',
];
const providers = providerPackages;

/** The composition points: the only packages that may import a provider (besides applications). */
export const compositionPoints: readonly string[] = [
  '@verikit/cli',
  '@verikit/simulator',
  'examples/*',
  'examples',
  'verikit-monorepo',
];

/**
 * Named exceptions to "only a composition point imports a provider", importer → the one provider it may import.
 *
 * TEMPORARY: @verikit/sandbox is the gateway's fake in a package of its own, and so imports @verikit/gateway. The
 * fake is moving to @verikit/gateway/fake; delete this entry (and the sandbox's row below) when the @verikit/sandbox
 * package is gone, or as soon as it no longer imports the gateway: the rule then holds with no exception.
 */
export const providerImportExceptions: Readonly<Record<string, string>> = { '@verikit/sandbox': '@verikit/gateway' };

const bindings = ['@verikit/redis', '@verikit/http', '@verikit/testing', '@verikit/sandbox'];
const client = '@verikit/client';
const react = '@verikit/react';
const simulator = '@verikit/simulator';
const belowCli = [provider, providerUtils, core, ...providers, ...bindings, client, react, simulator];

/** Row used for every workspace package under examples/, whatever its name. */
export const examplesRow = 'examples/*';

/** Row used for the private root package (scripts, benches and the examples without a package.json). */
export const rootRow = 'verikit-monorepo';

/**
 * The allowed arrows. Provider packages never see the engine; core and provider-utils are independent;
 * the browser client talks to @verikit/http over the wire, so it depends on none of our packages.
 */
export const packageArrows: Readonly<Record<string, ArrowRow>> = {
  [provider]: { tier: 0, dependsOn: [] },
  [providerUtils]: { tier: 1, dependsOn: [provider] },
  [core]: { tier: 2, dependsOn: [provider] },
  ...Object.fromEntries(providers.map((name) => [name, { tier: 3, dependsOn: [provider, providerUtils] }])),
  '@verikit/redis': { tier: 3, dependsOn: [provider, core] },
  '@verikit/http': { tier: 3, dependsOn: [provider, core] },
  // The test double, clock and contract suite need only the spec, so any package above it may test with them.
  '@verikit/testing': { tier: 1, dependsOn: [provider] },
  // The gateway's fake, in a package of its own until it moves to @verikit/gateway/fake (providerImportExceptions).
  '@verikit/sandbox': { tier: 3, dependsOn: [provider, core, '@verikit/gateway'] },
  [client]: { tier: 3, dependsOn: [] },
  [react]: { tier: 4, dependsOn: [client] },
  // The carrier simulator drives the engine and the provider packages against their fakes: a composition point.
  [simulator]: { tier: 4, dependsOn: [provider, providerUtils, core, ...providers, '@verikit/testing'] },
  '@verikit/cli': { tier: 5, dependsOn: belowCli },
  // An integration where signups are built: on the engine's proofs and the flow routes; nothing imports it.
  '@verikit/better-auth': { tier: 5, dependsOn: [provider, core, '@verikit/http'] },
  [examplesRow]: { tier: 6, dependsOn: ['*'] },
  [rootRow]: { tier: 6, dependsOn: ['*'] },
};

/** The parts of a package.json the checks read, and where it was found (for messages). */
export interface Manifest {
  readonly path: string;
  readonly name: string;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly devDependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
}

type Field = 'dependencies' | 'devDependencies' | 'peerDependencies';

/** The table row a manifest is held to, or undefined when the package is missing from the table. */
export function rowOf(manifest: Manifest, table = packageArrows): { key: string; row: ArrowRow } | undefined {
  const key = manifest.path.startsWith('examples/') ? examplesRow : manifest.name;
  const row = table[key];
  return row === undefined ? undefined : { key, row };
}

/** Names in one dependency field that are ours: a workspace package or any `@verikit/` name. */
function oursIn(manifest: Manifest, field: Field, workspace: ReadonlySet<string>): string[] {
  return Object.keys(manifest[field] ?? {}).filter((name) => name.startsWith('@verikit/') || workspace.has(name));
}

/** The tier of a dependency target; undefined when the target is not a known row. */
function tierOf(name: string, manifests: readonly Manifest[], table: Readonly<Record<string, ArrowRow>>) {
  const manifest = manifests.find((each) => each.name === name);
  return (manifest ? rowOf(manifest, table)?.row : table[name])?.tier;
}

/**
 * Every arrow that breaks the table, one readable sentence each: packages missing from the table, runtime or
 * peer dependencies the row does not allow, devDependencies pointing to a higher tier, and dependency cycles.
 */
export function arrowViolations(manifests: readonly Manifest[], table = packageArrows): string[] {
  const workspace = new Set(manifests.map((manifest) => manifest.name));
  const problems: string[] = [];
  for (const manifest of manifests) {
    const found = rowOf(manifest, table);
    if (found === undefined) {
      problems.push(
        `${manifest.name} (${manifest.path}) is not in the arrow table: add it to packageArrows in ` +
          'scripts/package-arrows.ts with its tier and the packages it may depend on',
      );
      continue;
    }
    const { key, row } = found;
    const any = row.dependsOn.includes('*');
    for (const field of ['dependencies', 'peerDependencies'] as const) {
      for (const target of oursIn(manifest, field, workspace)) {
        if (target === manifest.name) problems.push(`${manifest.name} lists itself in ${field}`);
        else if (!any && !row.dependsOn.includes(target)) {
          problems.push(
            `${manifest.name} ${field} -> ${target} points the wrong way: ${key} may depend on ` +
              `${row.dependsOn.length === 0 ? 'none of our packages' : row.dependsOn.join(', ')}`,
          );
        }
      }
    }
    for (const target of oursIn(manifest, 'devDependencies', workspace)) {
      const targetTier = tierOf(target, manifests, table);
      if (target === manifest.name) problems.push(`${manifest.name} lists itself in devDependencies`);
      else if (any || row.dependsOn.includes(target)) continue;
      else if (targetTier === undefined)
        problems.push(`${manifest.name} devDependencies -> ${target}: ${target} is not in the arrow table`);
      else if (targetTier > row.tier) {
        problems.push(
          `${manifest.name} devDependencies -> ${target} points up: a devDependency may name what ${key} may depend on, ` +
            `or a package of tier ${row.tier} or lower, and ${target} is tier ${targetTier}`,
        );
      }
    }
  }
  return [...problems, ...cycles(manifests, workspace).map((cycle) => `dependency cycle: ${cycle.join(' -> ')}`)];
}

/** Cycles in the graph of all three dependency fields among our packages, each as the path that closes it. */
function cycles(manifests: readonly Manifest[], workspace: ReadonlySet<string>): string[][] {
  const edges = new Map(
    manifests.map((manifest) => [
      manifest.name,
      (['dependencies', 'devDependencies', 'peerDependencies'] as const).flatMap((field) =>
        oursIn(manifest, field, workspace),
      ),
    ]),
  );
  const found: string[][] = [];
  const done = new Set<string>();
  const visit = (name: string, path: string[]): void => {
    const at = path.indexOf(name);
    if (at !== -1) {
      found.push([...path.slice(at), name]);
      return;
    }
    if (done.has(name)) return;
    for (const next of edges.get(name) ?? []) visit(next, [...path, name]);
    done.add(name);
  };
  for (const name of [...edges.keys()].sort()) visit(name, []);
  return found;
}

/** Which package imports which, as read from package.json files or from source: importer → imported names. */
export type ImportEdges = ReadonlyMap<string, readonly string[]>;

/**
 * Every arrow to a provider package from a package that is not a composition point, one sentence each: a provider
 * never imports another provider (they share through @verikit/provider-utils), and nothing but cli, the examples
 * and applications imports a provider at all. `how` says what the edges were read from, for the message.
 */
export function providerCrossings(
  edges: ImportEdges,
  how: string,
  providers: readonly string[] = providerPackages,
  exceptions: Readonly<Record<string, string>> = providerImportExceptions,
): string[] {
  const problems: string[] = [];
  for (const [from, targets] of edges) {
    if (compositionPoints.includes(from)) continue;
    for (const target of targets) {
      if (!providers.includes(target) || target === from || exceptions[from] === target) continue;
      problems.push(
        providers.includes(from)
          ? `${from} ${how} ${target}: a provider package never imports another provider; move what both need to ` +
              '@verikit/provider-utils'
          : `${from} ${how} ${target}: only a composition point (${compositionPoints.join(', ')}) imports a provider`,
      );
    }
  }
  return problems;
}

/**
 * Dependencies as edges for {@link providerCrossings}: every package's runtime and peer dependencies, and a
 * provider's devDependencies too (a provider's tests have no reason to load another provider). Examples are keyed
 * by their table row.
 */
export function manifestEdges(manifests: readonly Manifest[], providers = providerPackages): ImportEdges {
  return new Map(
    manifests.map((manifest) => {
      const fields = providers.includes(manifest.name)
        ? (['dependencies', 'peerDependencies', 'devDependencies'] as const)
        : (['dependencies', 'peerDependencies'] as const);
      const key = rowOf(manifest)?.key ?? manifest.name;
      return [key, fields.flatMap((field) => Object.keys(manifest[field] ?? {}))];
    }),
  );
}
