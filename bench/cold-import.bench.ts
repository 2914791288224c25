/**
 * `pnpm bench cold-import`: how long a fresh node takes to `import '@verikit/core'`, the published build (dist/,
 * built here first with the packages' own `build` script, and removed after unless it was there before).
 *
 * Every round starts one fresh `node` per arm, in turn, and each child times its own `await import()` (wall,
 * `performance.now()`) and the CPU its process spent meanwhile (`process.cpuUsage()`, so a neighbour taking the
 * core counts less): node's own start-up is in no arm. The arms:
 * - `empty`: a module with nothing in it (what any import costs);
 * - `xstate`: xstate alone, the one dependency the engine cannot start without (the baseline);
 * - `zod`: zod alone, as core resolves it: every verikit package imports it, and every entry of zod's loads the
 *   same ~95 modules (decision 1780), so this is the floor of any import of verikit that keeps zod's schemas public;
 * - `core`: `@verikit/core`;
 * - `http`: `@verikit/http`, resolved from packages/http (it imports core, provider, hono and zod);
 * - `core, then one number read`: the same, then `readPhoneNumber` once: libphonenumber-js/max is loaded on the
 *   first number read (decision 1220), and this arm shows what that first read costs beyond the import;
 * - `core, to first verification`: the import, then `createVerikit` in memory with a provider written in the
 *   child, one phone flow started and its right code submitted: what a fresh process (a serverless function's cold
 *   start) pays before it has served one verification. Work moved from the import to the first call (a schema or
 *   a library loaded on first use) shows here, not as a saving.
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
  /** What the child does after the import, in the same timing: read one number, or serve one verification. */
  readonly after?: 'read a number' | 'serve a verification';
}

/**
 * After `import('@verikit/core')`: an engine in memory whose provider, written here, sends nothing and accepts
 * `123456`, then one phone flow from start to verified (the number's read loads libphonenumber-js, as it would).
 */
const serveAVerification = `
  const { createVerikit } = await import('@verikit/core');
  const provider = {
    specificationVersion: 'v1',
    name: 'bench',
    phone: {
      channels: ['sms'],
      send: async () => ({ requestId: 'request-1' }),
      check: async (input) => ({ valid: input.code === '123456' }),
    },
  };
  const verikit = createVerikit({ provider, secret: 'a-secret-of-32-characters-or-more!' });
  const flow = await verikit.start({ kind: 'phone', phoneNumber: '+2348031234567' });
  const result = await verikit.send(flow.id, { type: 'submit-code', code: '123456' });
  if (result.status !== 'verified') throw new Error('the flow was not verified: ' + result.status);`;

/** The child's script: times its import (and what the arm does after it) and prints the timing as JSON. */
function childScript(arm: Arm): string {
  const afterImport = {
    none: '',
    'read a number': `const { readPhoneNumber } = await import('@verikit/provider');
       if (!readPhoneNumber('+2348031234567').ok) throw new Error('the number was refused');`,
    'serve a verification': serveAVerification,
  }[arm.after ?? 'none'];
  return `
    const cpu = process.cpuUsage();
    const started = performance.now();
    await import(${JSON.stringify(arm.specifier)});
    ${afterImport}
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
      { name: 'zod', specifier: 'zod' },
      { name: 'core', specifier: '@verikit/core' },
      { name: 'core, then one number read', specifier: '@verikit/core', after: 'read a number' },
      { name: 'core, to first verification', specifier: '@verikit/core', after: 'serve a verification' },
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
      console.log(`  ${name.padEnd(30)} ${format(timing).padEnd(26)} ${ratio}`);
    }
    const rows: SummaryRow[] = (['core', 'http'] as const).map((name) => {
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
    const served = medians.get('core, to first verification')!;
    rows.push({
      measure: 'cold import of @verikit/core to first verification served, CPU',
      value: format(served),
      baseline: `${format(xstate)} (xstate alone)`,
      ratio: served.cpuMs / xstate.cpuMs,
      goal: 'report',
      met: undefined,
    });
    return rows;
  } finally {
    removeBuild();
  }
}
