/**
 * Worker processes for a describe of the multi-process tests (never imported by a worker: it registers vitest hooks).
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { WorkerProcess } from './multi-process.fixtures.js';

/**
 * `count` processes running `script` (a `*-worker.fixtures.ts` that serves plans until "done"), booted once for the
 * describe that calls this: booting tsx on the source is most of a worker's cost, and under load three boots per test
 * took these tests to their timeout. The function returned hands worker `index` the plan `planOf(index)`, waits
 * until every worker is ready, lets them all go at once and collects their reports, running `alongside` (the parent's
 * own part, when it has one) meanwhile. After the describe, each worker is told "done" and must exit with 0.
 */
export function useWorkerProcesses<Report>(
  script: string,
  count: number,
): (planOf: (index: number) => unknown, alongside?: () => Promise<void>) => Promise<Report[]> {
  let workers: WorkerProcess[] = [];
  beforeAll(async () => {
    workers = Array.from({ length: count }, (_, index) => new WorkerProcess(script, index));
    await Promise.all(workers.map((worker) => worker.message('booted')));
  });
  afterAll(async () => {
    try {
      for (const worker of workers) worker.send('done');
      expect(await Promise.all(workers.map((worker) => worker.exited))).toEqual(workers.map(() => 0));
    } finally {
      for (const worker of workers) worker.kill();
    }
  });
  return async (planOf, alongside) => {
    for (const [index, worker] of workers.entries()) worker.send(planOf(index));
    await Promise.all(workers.map((worker) => worker.message('ready')));
    for (const worker of workers) worker.send('go');
    const [reports] = await Promise.all([
      Promise.all(workers.map((worker) => worker.message<Report>('report'))),
      alongside?.(),
    ]);
    return reports;
  };
}
