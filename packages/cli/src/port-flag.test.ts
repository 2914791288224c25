import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvalidInputError } from '@verikit/provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binPath, capture } from './cli.fixtures.js';
import { parsePort } from './port-flag.js';
import { runCli } from './run-cli.js';

describe('--port', () => {
  it('takes a whole number from 0 to 65535', () => {
    expect(parsePort(undefined)).toBeUndefined();
    expect(parsePort('0')).toBe(0);
    expect(parsePort('4010')).toBe(4010);
    expect(parsePort('65535')).toBe(65_535);
  });
  const bad = [
    '65536',
    '70000',
    '999999',
    '-1',
    '1.5',
    '1e3',
    '0x50',
    ' 80',
    '80 ',
    '',
    '٣٠٠٠',
    'NaN',
    'Infinity',
    '4010abc',
  ];
  for (const value of bad) {
    it(`refuses ${JSON.stringify(value)} with an InvalidInputError naming --port, without echoing the value`, () => {
      let caught: unknown;
      try {
        parsePort(value);
      } catch (error) {
        caught = error;
      }
      expect(InvalidInputError.isInstance(caught)).toBe(true);
      const error = caught as InvalidInputError;
      expect(error.field).toBe('--port');
      expect(error.isRetryable).toBe(false);
      expect(error.issues[0]?.message).toBe('must be a whole number from 0 to 65535');
      if (value.trim() !== '') expect(error.message).not.toContain(value.trim());
    });
  }
  // `--port -1` is the flag's value, not an ambiguous second flag, for every provider.
  for (const args of [
    ['--port', '65536'],
    ['--port=-1'],
    ['--port', '-1'],
    ['--port', '1e3'],
    ['--provider', 'termii', '--port', '-1'],
    ['--provider', 'twilio', '--port', '-1'],
  ]) {
    it(`exits 2 on verikit sandbox ${args.join(' ')}, naming --port and its range`, async () => {
      const io = capture();
      expect(await runCli(['sandbox', ...args], io)).toBe(2);
      expect(io.errors).toEqual(['verikit sandbox: --port must be a whole number from 0 to 65535']);
      expect(io.lines).toEqual([]);
    });
  }
});

describe('a port already in use', () => {
  let taken: Server;
  let port: number;
  beforeAll(async () => {
    taken = createServer((_request, response) => response.end());
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    port = (taken.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => taken.close(resolve));
  });

  for (const provider of ['gateway', 'termii', 'twilio']) {
    it(`exits 1 with one line naming the port (--provider ${provider})`, async () => {
      const io = capture();
      expect(await runCli(['sandbox', '--provider', provider, '--port', String(port)], io)).toBe(1);
      expect(io.errors).toEqual([
        `verikit sandbox: port ${port} on 127.0.0.1 is already in use: stop what uses it, or pick another with --port (0 picks a free one)`,
      ]);
      expect(io.lines).toEqual([]);
    });
  }
  it('names the port given when the one after it (the gateway fake’s USSD listener) is taken too', async () => {
    // The port after --port can be held by anything, even an outbound connection's local port: the message names
    // the port the person gave, which the main listener tries first.
    const next = createServer((_request, response) => response.end());
    const listening = await new Promise<boolean>((resolve) => {
      next.once('error', () => resolve(false));
      next.listen(port + 1, '127.0.0.1', () => resolve(true));
    });
    try {
      const io = capture();
      expect(await runCli(['sandbox', '--provider', 'gateway', '--port', String(port)], io)).toBe(1);
      expect(io.errors).toEqual([
        `verikit sandbox: port ${port} on 127.0.0.1 is already in use: stop what uses it, or pick another with --port (0 picks a free one)`,
      ]);
    } finally {
      if (listening) await new Promise((resolve) => next.close(resolve));
    }
  });
  it('through the real bin: exit code 1, one line on stderr, no stack trace', async () => {
    const child = spawn(process.execPath, [binPath, 'sandbox', '--port', String(port)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr.trimEnd().split('\n')).toEqual([
      expect.stringContaining(`port ${port} on 127.0.0.1 is already in use`),
    ]);
    expect(stderr).not.toMatch(/\n\s+at |Error:|EADDRINUSE/);
  }, 40_000);
});
