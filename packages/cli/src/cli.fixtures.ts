import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { GatewayFake } from '@verikit/gateway/fake';
import type { CliIo } from './cli-io.js';
import type { FakeRun } from './fakes.js';

/** Output captured in memory, for `runCli` in the test's own process. */
export function capture(env: Record<string, string> = {}): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (line) => lines.push(line), err: (line) => errors.push(line), env };
}

/** `packages/cli/bin/verikit.js`: the real executable. */
export const binPath = fileURLToPath(new URL('../bin/verikit.js', import.meta.url));
/** `packages/cli/src/main.ts`: what the bin runs through tsx when the package is not built. */
export const mainPath = fileURLToPath(new URL('./main.ts', import.meta.url));
/** The monorepo's root, where `pnpm exec verikit` resolves the workspace's bin. */
const repositoryRoot = fileURLToPath(new URL('../../..', import.meta.url));

/** A command run as a real process, with what it printed and how it ended. */
export interface CliProcess {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  /** Everything printed so far. */
  readonly output: { stdout: string; stderr: string };
  /** Resolves with the URL once the fake printed its "listening on" line; rejects if it ends first. */
  readonly listening: Promise<string>;
  /** Resolves when the process ended: its exit code, or the signal that ended it. */
  readonly ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Runs `command` as its own process group (`detached`), as a terminal runs a foreground job: the test
 * can then signal the whole group, the way Ctrl-C does.
 */
export function spawnCli(command: string, args: readonly string[]): CliProcess {
  const child = spawn(command, [...args], { cwd: repositoryRoot, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const output = { stdout: '', stderr: '' };
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString('utf8')));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const listening = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output.stdout += chunk.toString('utf8');
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output.stdout);
      if (match) resolve(match[1]!);
    });
    void ended.then(({ code, signal }) =>
      reject(new Error(`ended (${code ?? signal}) before listening: ${output.stderr}`)),
    );
  });
  return { child, output, listening, ended };
}

/** Ends whatever is left of a process group (a test that failed half way). */
export function killGroup(cli: CliProcess): void {
  if (cli.child.pid === undefined) return;
  try {
    process.kill(-cli.child.pid, 'SIGKILL');
  } catch {
    // The group is gone: nothing left.
  }
}

/** The gateway fake `runCli` started, or the test fails with what the command printed. */
export function gatewayFakeOf(result: FakeRun | number, io: { errors: string[] }): GatewayFake {
  if (typeof result === 'number' || result.provider !== 'gateway')
    throw new Error(
      `did not start the gateway fake (${typeof result === 'number' ? `exit ${result}` : result.provider}): ${io.errors.join('\n')}`,
    );
  return result.fake;
}
