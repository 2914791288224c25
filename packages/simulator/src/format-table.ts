import { figuresOf, type SimulationResult } from './simulation-result.js';

const percent = (share: number) => `${(share * 100).toFixed(1)}%`;
const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : '-');

/** The figures of each result as one row of a plain-text table (the same text for the same results). */
export function formatTable(results: readonly SimulationResult[]): string {
  const header = [
    'scenario',
    'flows',
    'people',
    'verified',
    `verified ≤${results[0] === undefined ? 300 : results[0].withinSeconds}s`,
    'p50 s',
    'p95 s',
    'sends/verified',
    'cost/verified',
    'attacker sends',
    'double sends',
  ];
  const rows = results.map((result) => {
    const figures = figuresOf(result);
    return [
      result.scenario,
      String(result.flows),
      String(result.people),
      percent(figures.verifiedShare),
      percent(figures.verifiedWithinShare),
      fixed(result.timeToVerify.p50, 1),
      fixed(result.timeToVerify.p95, 1),
      fixed(figures.sendsPerVerified, 2),
      `${fixed(figures.costPerVerified, 2)} ${result.cost.currency}`,
      String(result.sends.attackers),
      String(result.doubleSends),
    ];
  });
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ');
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

/** The per-operator and per-provider counts of one result, as text. */
export function formatBreakdown(result: SimulationResult): string {
  const operators = result.byOperator.map(
    (operator) =>
      `  ${operator.name.padEnd(10)} people ${String(operator.people).padStart(7)}  verified ${percent(operator.people === 0 ? 0 : operator.verified / operator.people).padStart(6)}  sends ${String(operator.sends).padStart(7)}  cost ${fixed(operator.cost, 2)} ${result.cost.currency}`,
  );
  const providers = result.byProvider.map(
    (provider) =>
      `  ${provider.name.padEnd(10)} sends ${String(provider.sends).padStart(7)}  cost ${fixed(provider.cost, 2)} ${result.cost.currency}`,
  );
  return [
    `${result.scenario} (seed ${result.seed}, ${result.mode}): refused ${result.refused}, gave up ${result.gaveUp}, receipts ${result.receipts}, lookups ${result.lookups.count} (${fixed(result.lookups.cost, 2)} ${result.cost.currency})`,
    ...(result.verifiedWithoutSends > 0
      ? [
          `  verified with no code sent (an inbound step): ${result.verifiedWithoutSends} of ${result.verified} (${percent(result.verified === 0 ? 0 : result.verifiedWithoutSends / result.verified)})`,
        ]
      : []),
    ...operators,
    ...providers,
  ].join('\n');
}
