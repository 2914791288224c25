import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CliIo } from './cli-io.js';
import { runCli } from './run-cli.js';

function capture(env: Record<string, string> = {}): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (line) => lines.push(line), err: (line) => errors.push(line), env };
}

const apiKey = 'cli-secret-api-key-42';
const secret = `whsec_${Buffer.from('a-cli-test-webhook-secret-32-bytes').toString('base64')}`;

describe('verikit sandbox', () => {
  it('starts, prints each request with codes masked, and never prints the apiKey or a given secret', async () => {
    const io = capture();
    const sandbox = await runCli(['sandbox', '--port', '0', '--api-key', apiKey, '--webhook-secret', secret, '--latency', '0'], io);
    if (typeof sandbox === 'number') throw new Error(`exit ${sandbox}: ${io.errors.join('\n')}`);
    try {
      const response = await fetch(`${sandbox.baseUrl}/gateway/api/v1/verify/bvn`, {
        method: 'POST',
        headers: { apikey: apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ number: '22222222222', otp: '777123' }),
      });
      expect(response.status).toBe(200);
      const output = io.lines.join('\n');
      expect(output).toContain(`listening on ${sandbox.url}`);
      expect(output).toMatch(/POST \/gateway\/api\/v1\/verify\/bvn 200/);
      for (const hidden of [apiKey, secret, '777123', '22222222222']) expect(output).not.toContain(hidden);
    } finally {
      await sandbox.close();
    }
  });
  it('takes the apiKey from the environment', async () => {
    const io = capture({ VERIKIT_SANDBOX_API_KEY: apiKey });
    const sandbox = await runCli(['sandbox'], io);
    if (typeof sandbox === 'number') throw new Error('did not start');
    try {
      expect(sandbox.apiKey).toBe(apiKey);
      expect(io.lines.join('\n')).not.toContain(apiKey);
    } finally {
      await sandbox.close();
    }
  });
  const bad: Array<[string[], string]> = [
    [['sandbox', '--port', 'eighty'], '--port must be a whole number'],
    [['sandbox', '--webhook-secret', 'not-whsec-secret-value'], '--webhook-secret must be whsec_'],
    [['sandbox', '--webhook-url', 'ftp://x'], '--webhook-url must be an http(s) URL'],
    [['sandbox', '--latency', '99999999'], '--latency '],
    [['sandbox', '--slow', '99999999'], '--slow '],
    [['sandbox', '--colour'], "Unknown option '--colour'"],
    [['serve'], 'unknown command'],
  ];
  for (const [args, message] of bad) {
    it(`exits 2 on ${args.join(' ')}`, async () => {
      const io = capture();
      expect(await runCli(args, io)).toBe(2);
      expect(io.errors.join('\n')).toContain(message);
      expect(io.errors.join('\n')).not.toContain('not-whsec-secret-value');
    });
  }
  it('runs from source through bin/verikit.js', async () => {
    const bin = fileURLToPath(new URL('../bin/verikit.js', import.meta.url));
    const child = spawn(process.execPath, [bin, 'sandbox', '--port', '0', '--api-key', apiKey], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString('utf8');
          const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
          if (match) resolve(match[1]!);
        });
        child.on('exit', (code) => reject(new Error(`exited ${code}`)));
      });
      const response = await fetch(`${url}/gateway/api/v1/send/sms`, { method: 'POST', headers: { apikey: 'wrong' }, body: '{}' });
      expect(response.status).toBe(401);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });
});
