import { spawn } from 'node:child_process';
import { type AddressInfo, createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** The repository's root, where a person types `pnpm --filter @verikit/example-signup start`. */
const root = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * Runs the documented start command as its own process group (as a terminal runs a foreground job), so the
 * test can signal the whole group the way Ctrl-C does.
 */
function start(env: Record<string, string>) {
  const child = spawn('pnpm', ['--filter', '@verikit/example-signup', 'start'], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString('utf8')));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output, ended };
}

describe('the signup start command', () => {
  it('says in one line which port is taken, without a stack trace, and exits 1', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      const run = start({ PORT: String(port) });
      const { code } = await run.ended;
      expect(code).toBe(1);
      const ours = run.output.stderr.split('\n').filter((line) => line.startsWith('signup:'));
      expect(ours).toEqual([
        `signup: port ${port} on 127.0.0.1 is already in use: stop what uses it, or set PORT to another (PORT=0 picks a free one)`,
      ]);
      expect(run.output.stderr).not.toMatch(/\n\s+at /);
      expect(run.output.stderr).not.toContain('EADDRINUSE');
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  }, 120_000);

  it('stops on Ctrl-C (SIGINT to the whole group) without pnpm reporting a failed run', async () => {
    const run = start({ PORT: '0' });
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setInterval(() => {
          if (run.output.stdout.includes('signup app on')) {
            clearInterval(timer);
            resolve();
          }
        }, 100);
        void run.ended.then(() => {
          clearInterval(timer);
          reject(new Error(`ended before listening: ${run.output.stderr}`));
        });
      });
      process.kill(-run.child.pid!, 'SIGINT');
      await run.ended;
      expect(`${run.output.stdout}\n${run.output.stderr}`).not.toContain('ERR_PNPM');
      expect(run.output.stderr).not.toMatch(/\n\s+at /);
    } finally {
      try {
        process.kill(-run.child.pid!, 'SIGKILL');
      } catch {
        // The group is gone.
      }
    }
  }, 120_000);
});
