/**
 * Shared set-up of the Redis tests: where Redis is, whether the tests must run, unique namespaces
 * and clean-up of the keys a test wrote. Never FLUSHALL/FLUSHDB: other suites share this Redis.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@keyv/redis';

export const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Redis tests are mandatory in CI: there an unreachable Redis fails the run instead of skipping. */
export const redisRequired = process.env.CI === 'true';

/** Why Redis at `url` cannot be used, or undefined when it answers PING. */
export async function redisUnavailableReason(url: string = redisUrl): Promise<string | undefined> {
  const client = createClient({ url, socket: { connectTimeout: 1000, reconnectStrategy: false } });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
    return undefined;
  } catch (error) {
    return `Redis at ${url} is not reachable (${error instanceof Error ? error.message : String(error)})`;
  } finally {
    if (client.isOpen) client.destroy();
  }
}

/**
 * Decides whether the Redis suites run: returns the reason to skip (printed), or undefined to run.
 * With CI=true an unreachable Redis throws, failing the suite.
 */
export async function redisSkipReason(suite: string): Promise<string | undefined> {
  const reason = await redisUnavailableReason();
  if (reason === undefined) return undefined;
  if (redisRequired) throw new Error(`${suite}: ${reason}, and CI=true makes the Redis tests mandatory`);
  console.warn(
    `[skip] ${suite}: ${reason}. Set REDIS_URL or start redis-server to run them; with CI=true they are mandatory.`,
  );
  return reason;
}

/** A namespace no other test or run uses. */
export function uniqueNamespace(label: string): string {
  return `vk-test-${label}-${process.pid}-${randomUUID().slice(0, 8)}`;
}

/** Deletes every key under `namespace::` (SCAN + UNLINK, bounded by the keys found). */
export async function deleteNamespace(namespace: string, url: string = redisUrl): Promise<number> {
  const client = createClient({ url, socket: { connectTimeout: 1000, reconnectStrategy: false } });
  client.on('error', () => {});
  let deleted = 0;
  try {
    await client.connect();
    for await (const keys of client.scanIterator({ MATCH: `${namespace}::*`, COUNT: 1000 })) {
      if (keys.length > 0) deleted += await client.unlink(keys);
    }
  } finally {
    if (client.isOpen) client.destroy();
  }
  return deleted;
}

/**
 * Why the tests that run a private redis-server cannot, or undefined when `redis-server` is on PATH. With CI=true
 * a missing server throws, failing the suite; otherwise the reason is printed and the suite skips.
 */
export async function redisServerSkipReason(suite: string): Promise<string | undefined> {
  const missing = await new Promise<string | undefined>((resolve) => {
    execFile('redis-server', ['--version'], (error) =>
      resolve(error ? `redis-server is not on PATH (${error.message})` : undefined),
    );
  });
  if (missing === undefined) return undefined;
  if (redisRequired) throw new Error(`${suite}: ${missing}, and CI=true makes the Redis tests mandatory`);
  console.warn(`[skip] ${suite}: ${missing}. Install redis-server to run it; with CI=true it is mandatory.`);
  return missing;
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/**
 * A private redis-server child process, for tests that stop Redis: never the shared one. No save
 * points and no AOF; `stop()` shuts down with SAVE so `start()` reloads the same data from its own
 * temporary directory, as a Redis restarted for maintenance would.
 */
export class PrivateRedis {
  readonly port: number;
  readonly url: string;
  readonly #dir: string;
  #process: ChildProcess | undefined;

  private constructor(port: number) {
    this.port = port;
    this.url = `redis://127.0.0.1:${port}`;
    this.#dir = mkdtempSync(join(tmpdir(), 'verikit-redis-'));
  }

  static async start(): Promise<PrivateRedis> {
    // freePort's port was free when asked, not necessarily when redis-server binds it (tests run in parallel): a
    // server that exits at start is started again on another port, twice at most.
    for (let attempt = 1; ; attempt += 1) {
      const redis = new PrivateRedis(await freePort());
      try {
        await redis.start();
        return redis;
      } catch (error) {
        await redis.dispose();
        if (attempt === 3 || !(error instanceof Error && error.message.startsWith('redis-server exited'))) throw error;
      }
    }
  }

  async start(): Promise<void> {
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        this.#dir,
        '--dbfilename',
        'dump.rdb',
      ],
      { stdio: 'ignore' },
    );
    this.#process = child;
    // A test or bench that throws past its cleanup still ends its server: 'exit' runs on an uncaught error and on
    // process.exit (not on SIGKILL of this process).
    const killOnExit = (): void => {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    };
    process.once('exit', killOnExit);
    child.once('exit', () => process.off('exit', killOnExit));
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`))),
    );
    exited.catch(() => {});
    for (let attempt = 0; attempt < 100; attempt += 1) {
      if ((await redisUnavailableReason(this.url)) === undefined) return;
      await Promise.race([new Promise((resolve) => setTimeout(resolve, 50)), exited]);
    }
    throw new Error(`redis-server on port ${this.port} did not answer`);
  }

  /** SHUTDOWN SAVE: the data is written to disk and the server exits; clients see the connection drop. */
  async stop(): Promise<void> {
    const child = this.#process;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const client = createClient({ url: this.url, socket: { reconnectStrategy: false } });
    client.on('error', () => {});
    await client.connect();
    await client.sendCommand(['SHUTDOWN', 'SAVE']).catch(() => undefined);
    if (client.isOpen) client.destroy();
    await exited;
    this.#process = undefined;
  }

  /** SIGSTOP: the server hangs, connections stay open and nothing is answered. */
  pause(): void {
    this.#process?.kill('SIGSTOP');
  }

  /** SIGCONT after {@link pause}. */
  resume(): void {
    this.#process?.kill('SIGCONT');
  }

  /** Kills the server and removes its directory. */
  async dispose(): Promise<void> {
    const child = this.#process;
    if (child && child.exitCode === null) {
      child.kill('SIGCONT');
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
