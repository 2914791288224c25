import { fork } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { redisUnavailableReason } from './redis-test-env.fixtures.js';

const worker = join(fileURLToPath(new URL('.', import.meta.url)), 'private-redis-worker.fixtures.ts');

test('a private redis-server ends with the process that started it, even when that process crashes', async () => {
  const child = fork(worker, {
    execArgv: ['--import', 'tsx', '--conditions=@verikit/source'],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  const url = await new Promise<string>((resolve) => child.once('message', (message) => resolve(String(message))));
  expect(await redisUnavailableReason(url)).toBeUndefined();
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.send('crash');
  const code = await exited;
  expect(code).not.toBe(0);
  expect(await redisUnavailableReason(url)).toBeDefined();
}, 60_000);
