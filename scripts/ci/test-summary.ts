// Reads the JSON report `pnpm test` wrote in CI and prints one closing line, `N passed, N failed, N skipped`: the
// plain form any reader of a CI log understands, kept as the log's last line since the benches and the package checks
// print after the tests. A report with failures, or with no test run at all, exits non-zero. No word stands before
// the counts: the two CI runs whose line began with `tests:` were read as having run no test (a reader may take
// `tests N` for node's test runner's count line and find no pass count after it).
import { readFileSync } from 'node:fs';

/** The counts of vitest's JSON report that the closing line names. */
export interface VitestReportCounts {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
}

/** The closing line for a report, and whether the run counts as a pass (at least one test, none failed). */
export function testSummary(report: VitestReportCounts): { line: string; ok: boolean } {
  const skipped = report.numPendingTests + report.numTodoTests;
  const line = `${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`;
  return { line, ok: report.numFailedTests === 0 && report.numPassedTests > 0 };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const path = process.argv[2];
  if (!path) throw new Error('usage: tsx scripts/ci/test-summary.ts <vitest JSON report>');
  const { line, ok } = testSummary(JSON.parse(readFileSync(path, 'utf8')) as VitestReportCounts);
  console.log(line);
  if (!ok) process.exitCode = 1;
}
