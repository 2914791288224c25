import type { ReplayResult } from './run-replay.js';

const share = (value: number) => `${(value * 100).toFixed(3)}%`;

/** A replay's figures as `verikit replay` prints them. */
export function formatReplay(result: ReplayResult): string {
  const { people, attackers, cost, ledger, trips } = result;
  return [
    `${result.scenario} (seed ${result.seed}): ${result.starts} starts`,
    `attacker sends: ${attackers.sends} (${attackers.starts} bot starts)`,
    ...attackers.byPrefix.map(
      (range) => `  ${range.prefix}: ${range.beforeTrip} before the first trip, ${range.sends} in all`,
    ),
    `real people refused: ${people.refused} of ${people.starts} (${share(people.refusedShare)})`,
    `trips: ${trips.prefix} per prefix, ${trips.country} per country`,
    `money spent: ${ledger.total} ${cost.currency} (people ${cost.people}, attackers ${cost.attackers})`,
  ].join('\n');
}
