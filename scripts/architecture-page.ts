/**
 * Writes the parts of docs/architecture.md that the code decides: the drawing of which package imports which,
 * and the "imports" column of the package table, both from what production source imports
 * (scripts/package-imports.ts), and the table of core's folder layers, from scripts/core-layers.cjs (the list
 * dependency-cruiser holds core's imports to). `pnpm architecture` rewrites the page; scripts/architecture-page.test.ts fails when
 * the committed page differs from what this generates.
 *
 * @module
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { examplesRow, packageArrows } from './package-arrows.js';
import { examplesNode, type PackageImports } from './package-imports.js';

/** The repository root, and the page this writes. */
export const repositoryRoot = fileURLToPath(new URL('..', import.meta.url));
export const architecturePagePath = fileURLToPath(new URL('../docs/architecture.md', import.meta.url));

/**
 * Arrows no import shows: the browser client reaches the HTTP layer over the wire (JSON and server-sent events),
 * never through its code. Drawn dotted.
 */
const wireArrows: ReadonlyArray<{ from: string; to: string; label: string }> = [
  { from: '@verikit/client', to: '@verikit/http', label: 'HTTP and SSE' },
];

const start = (name: string) => `<!-- generated:${name}:start (pnpm architecture) -->`;
const end = (name: string) => `<!-- generated:${name}:end -->`;

/** `@verikit/provider-utils` → `provider-utils`: the label a node shows. */
const shortName = (name: string) => name.replace(/^@verikit\//, '');
/** A Mermaid node id (no dashes, which Mermaid reads as part of an arrow). */
const nodeId = (name: string) => shortName(name).replace(/[^a-zA-Z0-9]/g, '_');

/** Lower tiers first (provider at the bottom of the drawing), then by name. */
function byTier(packages: readonly PackageImports[]): PackageImports[] {
  const tier = (name: string) => packageArrows[name === examplesNode ? examplesRow : name]?.tier ?? 99;
  return [...packages].sort((a, b) => tier(a.name) - tier(b.name) || a.name.localeCompare(b.name));
}

/** The Mermaid drawing: one node per package, one arrow per package imported by production source. */
export function arrowsDiagram(packages: readonly PackageImports[]): string {
  const sorted = byTier(packages);
  const lines = ['```mermaid', 'flowchart BT'];
  for (const entry of sorted) lines.push(`  ${nodeId(entry.name)}[${shortName(entry.name)}]`);
  for (const entry of sorted) {
    if (entry.ours.length > 0) {
      lines.push(`  ${nodeId(entry.name)} --> ${entry.ours.map(nodeId).join(' & ')}`);
    }
  }
  const names = new Set(packages.map((entry) => entry.name));
  for (const arrow of wireArrows) {
    if (names.has(arrow.from) && names.has(arrow.to)) {
      lines.push(`  ${nodeId(arrow.from)} -. ${arrow.label} .-> ${nodeId(arrow.to)}`);
    }
  }
  lines.push('```');
  return lines.join('\n');
}

/** The "imports" cell: our packages by short name, then third-party ones after a semicolon. */
export function importsCell(entry: PackageImports): string {
  const ours = entry.ours.map(shortName).join(', ');
  const others = entry.thirdParty.join(', ');
  if (ours === '' && others === '') return 'nothing';
  return [ours, others].filter((part) => part !== '').join('; ');
}

const tableHead = ['| package | owns | imports |', '|---|---|---|'];
const rowPattern = /^\| \[`(@verikit\/[^`]+)`\]\([^)]*\) \| (.*) \| [^|]*\|$/;

/**
 * The package table: the "owns" cell of each row is kept as written, the "imports" cell is generated. A package
 * without a row gets one, described by its package.json; a row whose package is gone is dropped.
 */
export function packageTable(packages: readonly PackageImports[], current: string): string {
  const owns = new Map<string, string>();
  for (const line of current.split('\n')) {
    const match = rowPattern.exec(line);
    if (match) owns.set(match[1]!, match[2]!);
  }
  const rows = byTier(packages)
    .filter((entry) => entry.name !== examplesNode)
    .map((entry) => {
      const link = `[\`${entry.name}\`](../${entry.folder}/README.md)`;
      return `| ${link} | ${owns.get(entry.name) ?? entry.description} | ${importsCell(entry)} |`;
    });
  return [...tableHead, ...rows].join('\n');
}

/** One layer of core's source folders, lowest first: each folder with what it owns. */
interface CoreLayer {
  readonly name: string;
  readonly folders: Readonly<Record<string, string>>;
}

const { coreLayers } = createRequire(import.meta.url)('./core-layers.cjs') as { coreLayers: readonly CoreLayer[] };

/** The table of core's folders by layer, lowest first, with what each may import. */
export function coreLayersTable(): string {
  const rows = coreLayers.flatMap((layer, index) => {
    const below = coreLayers.slice(0, index).map((lower) => lower.name);
    const imports = below.length === 0 ? 'no other folder' : below.join(', ');
    return Object.entries(layer.folders).map(
      ([folder, owns]) => `| ${index + 1}. ${layer.name} | \`${folder}/\` | ${owns} | ${imports} |`,
    );
  });
  return ['| layer | folder | owns | may import |', '|---|---|---|---|', ...rows].join('\n');
}

/** Replaces what lies between one pair of markers, or throws naming the missing marker. */
function replaceBetween(page: string, name: string, render: (current: string) => string): string {
  const from = page.indexOf(start(name));
  const to = page.indexOf(end(name));
  if (from === -1 || to === -1 || to < from) {
    throw new Error(`docs/architecture.md needs the markers ${start(name)} and ${end(name)}, in that order`);
  }
  const inside = page.slice(from + start(name).length, to);
  return `${page.slice(0, from)}${start(name)}\n${render(inside)}\n${page.slice(to)}`;
}

/** The page with its generated parts rewritten from `packages`; everything outside the markers is kept. */
export function generateArchitecturePage(page: string, packages: readonly PackageImports[]): string {
  const withTable = replaceBetween(page, 'packages', (current) => packageTable(packages, current));
  const withArrows = replaceBetween(withTable, 'arrows', () => arrowsDiagram(packages));
  return replaceBetween(withArrows, 'core-layers', () => coreLayersTable());
}
