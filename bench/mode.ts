/**
 * `pnpm bench --short`: every bench with fewer and shorter rounds and smaller sizes, so that all of them finish in
 * about a minute. CI runs it (.ci/run) to prove that each bench still completes and prints its ratio; its figures
 * are too short to publish. `bench/run.ts` sets the variable below so that the benches' child processes see it too.
 */

/** The environment variable that selects the short mode, inherited by every child process of a bench. */
export const shortModeVariable = 'VERIKIT_BENCH_SHORT';

/** Whether this run is the short one (read when called: `bench/run.ts` sets it after this module has loaded). */
export function isShort(): boolean {
  return process.env[shortModeVariable] === '1';
}

/** `full` in a normal run, `quick` in the short one. */
export function sized<T>(full: T, quick: T): T {
  return isShort() ? quick : full;
}
