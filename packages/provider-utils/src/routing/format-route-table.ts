import type { RouteBelief } from './learning-router.js';

/** The table of `LearningRouter.table()` as text, one member a line. */
export function formatRouteTable(rows: readonly RouteBelief[]): string {
  const lines = ['route            member       sent  delivered   verified  to verify  believed'];
  for (const row of rows)
    lines.push(
      [
        row.route.padEnd(16),
        row.member.padEnd(12),
        row.sent.toFixed(1).padStart(6),
        row.delivered.toFixed(1).padStart(10),
        row.verified.toFixed(1).padStart(10),
        (row.secondsToVerify === undefined ? '-' : `${row.secondsToVerify.toFixed(0)} s`).padStart(10),
        `${(row.believed * 100).toFixed(1).padStart(8)}%`,
      ].join(' '),
    );
  return lines.join('\n');
}
