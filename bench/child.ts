/**
 * The benches' child processes (servers, stores of a given size), and the one rule they share: a child that dies
 * is reported, never waited on. Every wait for a child's answer races the child's exit, so a child killed by an
 * error (a limit it hit, a crash, the out-of-memory killer) fails its bench with the reason instead of hanging
 * `pnpm bench` forever.
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { sourceCondition } from './build.js';

/** The error a bench gets when its child exits while the bench waits for it. */
function exitError(name: string, code: number | null, signal: NodeJS.Signals | null): Error {
  return new Error(`the bench child "${name}" exited (${signal ?? `exit code ${code}`}) while the bench waited for it`);
}

/** A promise that rejects when `child` exits (never resolves); already handled, so it can be raced or dropped. */
function exited(child: ChildProcess, name: string): Promise<never> {
  const promise = new Promise<never>((_, reject) => {
    const fail = () => reject(exitError(name, child.exitCode, child.signalCode));
    if (child.exitCode !== null || child.signalCode !== null) fail();
    else child.once('exit', fail);
  });
  promise.catch(() => {});
  return promise;
}

/** A child run with an IPC channel: the bench sends it messages and awaits its answers. */
export class BenchChild {
  readonly process: ChildProcess;
  readonly #exited: Promise<never>;

  /**
   * Forks `file` (this bench's own module) with `env` added; `execArgv` adds node flags to the parent's. With
   * `published`, the workspace packages it imports resolve to their built `dist/` instead of their source.
   */
  constructor(
    readonly name: string,
    file: string,
    env: Record<string, string>,
    execArgv: readonly string[] = [],
    published = false,
  ) {
    const inherited = published ? process.execArgv.filter((flag) => flag !== sourceCondition) : process.execArgv;
    this.process = fork(file, [], {
      env: { ...process.env, ...env },
      execArgv: [...inherited, ...execArgv],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.#exited = exited(this.process, name);
  }

  /** The child's next message; rejects if the child exits first. */
  next<T>(): Promise<T> {
    return Promise.race([once(this.process, 'message').then(([message]) => message as T), this.#exited]);
  }

  /** Sends `message` and returns the child's answer; rejects if the child exits first. */
  ask<T>(message: unknown): Promise<T> {
    const answer = this.next<T>();
    this.process.send(message as Parameters<ChildProcess['send']>[0]);
    return answer;
  }

  /** Ends the child (a no-op when it has already exited). */
  stop(): void {
    this.process.kill();
  }
}

/**
 * Spawns `file` (this bench's own module) with `env` added and returns the first line it prints on stdout (its
 * address, as JSON) with a way to stop it; rejects if the child exits before printing it.
 */
export async function spawnServer(
  name: string,
  file: string,
  env: Record<string, string>,
): Promise<{ line: string; stop: () => void }> {
  const child = spawn(process.execPath, [...process.execArgv, file], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  try {
    const [line] = (await Promise.race([once(lines, 'line'), exited(child, name)])) as [string];
    return { line, stop: () => child.kill() };
  } catch (error) {
    child.kill();
    throw error;
  }
}
