/**
 * `pnpm bench cold-import`: how long a fresh node takes to `import '@verikit/core'`, the published build (dist/,
 * built here first with the packages' own `build` script, and removed after unless it was there before).
 *
 * Every round starts one fresh `node` per arm, in turn, and each child times its own `await import()` (wall,
 * `performance.now()`) and the CPU its process spent meanwhile (`process.cpuUsage()`, so a neighbour taking the
 * core counts less): node's own start-up is in no arm. The arms:
 * - `empty`: a module with nothing in it (what any import costs);
 * - `xstate`: xstate alone, the one dependency the engine cannot start without (the baseline);
 * - `core`: `@verikit/core`;
 * - `http`: `@verikit/http`, resolved from packages/http (it imports core, provider, hono and zod);
 * - `core, then one number read`: the same, then `readPhoneNumber` once: libphonenumber-js/max is loaded on the
 *   first number read (decision 1220), and this arm shows what that first read costs beyond the import.
 * `BENCH_COLD_IMPORT_BEFORE=/path/to/an/older/dist/index.js` adds that build as one more arm, for a before/after.
 * The summary row is the import's CPU time as a ratio of xstate's (the wall times of a shared machine mean nothing).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildPackages } from './build.js';
import { sized } from './mode.js';
import { median, type SummaryRow } from './summary.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const packageDirectory = (name: string) => join(root, 'packages', name);
const rounds = sized(21, 5);
/**
 * The goals (issue 38), as ratios of CPU time against xstate alone in the same run (a figure in ms means nothing on
 * a shared machine): `@verikit/core` ≤ 3x, `@verikit/http` ≤ 4x.
 */
const goalRatio = { core: 3, http: 4 } as const;

interface Timing {
  readonly ms: number;
  readonly cpuMs: number;
}

interface Arm {
  readonly name: string;
  readonly specifier: string;
  /** The package whose dependencies the child resolves from (its directory under packages/); `core` unless said. */
  readonly from?: string;
  /** Also reads one number after the import, in the same timing. */
  readonly readsANumber?: boolean;
}

/** The child's script: times its import (and the number read) and prints the timing as JSON. */
function childScript(arm: Arm): string {
  const read = arm.readsANumber
    ? `const { readPhoneNumber } = await import('@verikit/provider');
       if (!readPhoneNumber('+2348031234567').ok) throw new Error('the number was refused');`
    : '';
  return `
    const cpu = process.cpuUsage();
    const started = performance.now();
    await import(${JSON.stringify(arm.specifier)});
    ${read}
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpu);
    console.log(JSON.stringify({ ms, cpuMs: (used.user + used.system) / 1000 }));`;
}

/** One fresh node importing `arm`, run from its package's directory (whose dependencies and own name it resolves). */
async function timeOnce(arm: Arm): Promise<Timing> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '--eval', childScript(arm)], {
    cwd: packageDirectory(arm.from ?? 'core'),
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Timing;
}

const format = (timing: Timing) => `${timing.ms.toFixed(1)} ms (CPU ${timing.cpuMs.toFixed(1)} ms)`;

export async function run(): Promise<SummaryRow[]> {
  const removeBuild = buildPackages(['provider', 'core', 'http']);
  try {
    const arms: Arm[] = [
      { name: 'empty', specifier: 'data:text/javascript,export{}' },
      { name: 'xstate', specifier: 'xstate' },
      { name: 'core', specifier: '@verikit/core' },
      { name: 'core, then one number read', specifier: '@verikit/core', readsANumber: true },
      { name: 'http', specifier: '@verikit/http', from: 'http' },
    ];
    const before = process.env.BENCH_COLD_IMPORT_BEFORE;
    if (before !== undefined && before !== '') arms.push({ name: `before (${before})`, specifier: before });
    const timings = new Map<string, Timing[]>(arms.map((arm) => [arm.name, []]));
    for (let round = 0; round < rounds; round++) {
      for (const arm of arms) timings.get(arm.name)!.push(await timeOnce(arm));
    }
    const medians = new Map(
      [...timings].map(([name, list]) => [
        name,
        { ms: median(list.map((timing) => timing.ms)), cpuMs: median(list.map((timing) => timing.cpuMs)) },
      ]),
    );
    console.log(`cold import, median of ${rounds} fresh processes per arm, arms in turn:`);
    const xstate = medians.get('xstate')!;
    for (const [name, timing] of medians) {
      const ratio = `${(timing.ms / xstate.ms).toFixed(2)}x xstate (CPU ${(timing.cpuMs / xstate.cpuMs).toFixed(2)}x)`;
      console.log(`  ${name.padEnd(28)} ${format(timing).padEnd(26)} ${ratio}`);
    }
    return (['core', 'http'] as const).map((name) => {
      const timing = medians.get(name)!;
      const ratio = timing.cpuMs / xstate.cpuMs;
      return {
        measure: `cold import of @verikit/${name}, CPU`,
        value: format(timing),
        baseline: `${format(xstate)} (xstate alone)`,
        ratio,
        goal: `≤ ${goalRatio[name]}x xstate's`,
        met: ratio <= goalRatio[name],
      };
    });
  } finally {
    removeBuild();
  }
}
