import { spawn } from 'node:child_process';
import { type AddressInfo, createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The better-auth and dial-in examples' start commands, run as a person runs them (issue 35, finding 15): a port in
// use is one line naming it and PORT, and Ctrl-C ends the run without pnpm reporting a failure. The signup example's
// own test (examples/signup/server/main.test.ts) checks its command the same way.
const root = fileURLToPath(new URL('..', import.meta.url));

/** The documented start command, as its own process group (as a terminal runs a foreground job). */
function start(name: string, env: Record<string, string>) {
  const child = spawn('pnpm', ['--filter', name, 'start'], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString('utf8')));
  const ended = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output, ended };
}

describe.each([
  { name: '@verikit/example-better-auth', prefix: 'better-auth example:', ready: 'Better Auth + verikit example:' },
  { name: '@verikit/example-dial-in', prefix: 'dial-in example:', ready: 'dial-in example: http' },
])('$name start', ({ name, prefix, ready }) => {
  it('says in one line which port is taken and how to change it, without a stack trace, and exits 1', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      const run = start(name, { PORT: String(port) });
      expect(await run.ended).toBe(1);
      expect(run.output.stderr.split('\n').filter((line) => line.startsWith(prefix))).toEqual([
        `${prefix} port ${port} on 127.0.0.1 is already in use: stop what uses it, or set PORT to another (PORT=0 picks a free one)`,
      ]);
      expect(run.output.stderr).not.toMatch(/\n\s+at |EADDRINUSE/);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  }, 120_000);

  it('stops on Ctrl-C (SIGINT to the whole group) without pnpm reporting a failed run', async () => {
    const run = start(name, { PORT: '0' });
    try {
      await new Promise<void>((resolve, reject) => {
        run.child.stdout.on('data', () => {
          if (run.output.stdout.includes(ready)) resolve();
        });
        void run.ended.then(() => reject(new Error(`ended before listening: ${run.output.stderr}`)));
      });
      process.kill(-run.child.pid!, 'SIGINT');
      await run.ended;
      // pnpm, signalled with the group, ends by the signal itself; what matters is that it reports no failure.
      expect(`${run.output.stdout}\n${run.output.stderr}`).not.toContain('ERR_PNPM');
    } finally {
      try {
        process.kill(-run.child.pid!, 'SIGKILL');
      } catch {
        // The group is gone.
      }
    }
  }, 120_000);
});
