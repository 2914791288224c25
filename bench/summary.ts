/**
 * The rows of issue 10's table: each bench returns the rows it measured, and `pnpm bench` (bench/run.ts)
 * prints them together at the end, each figure beside its baseline from the same run, with its ratio and
 * goal. A row a bench could not measure (Redis unreachable) says so instead of a ratio.
 */
export interface SummaryRow {
  /** What is measured, as in the table. */
  readonly measure: string;
  /** The figure (already formatted, with its unit). */
  readonly value: string;
  /** The baseline measured in the same run, formatted; `—` when the row has none. */
  readonly baseline: string;
  /** The figure the goal is about (a ratio, or bytes when there is no baseline); undefined when not measured. */
  readonly ratio: number | undefined;
  /** The goal as written in the issue (`≥ 1.0`, `≤ 700 bytes`, `report`). */
  readonly goal: string;
  /** Whether the goal is met; undefined for rows that only report. */
  readonly met: boolean | undefined;
}

/** The median of `values` (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The value at `fraction` (0.99 for p99) of the sorted values. */
export function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
}

/** Both `global.gc()` passes a heap reading needs; the benches run with `--expose-gc`. */
export function collectGarbage(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) throw new Error('run with --expose-gc (`pnpm bench` passes it)');
  collect();
  collect();
}

/** Prints the rows as one table: figure, baseline, ratio, goal and whether it is met. */
export function printSummary(rows: readonly SummaryRow[]): void {
  const table = [
    ['measure', 'figure', 'baseline (same run)', 'ratio', 'goal', 'met'],
    ...rows.map((row) => [
      row.measure,
      row.value,
      row.baseline,
      row.ratio === undefined ? 'not measured' : row.ratio.toFixed(2),
      row.goal,
      row.met === undefined ? (row.ratio === undefined ? 'no' : 'reported') : row.met ? 'yes' : 'NO',
    ]),
  ];
  const widths = table[0]!.map((_, column) => Math.max(...table.map((cells) => cells[column]!.length)));
  console.log('\n== summary (issue 10): each figure beside its baseline measured in the same run');
  for (const [index, cells] of table.entries()) {
    console.log(cells.map((cell, column) => cell.padEnd(widths[column]!)).join(' | '));
    if (index === 0) console.log(widths.map((width) => '-'.repeat(width)).join('-|-'));
  }
}
