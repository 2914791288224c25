import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { capture, gatewayFakeOf } from './cli.fixtures.js';
import { formatEvent } from './format-event.js';
import { runCli } from './run-cli.js';

const apiKey = 'cli-secret-api-key-42';
const secret = `whsec_${Buffer.from('a-cli-test-webhook-secret-32-bytes').toString('base64')}`;

describe('verikit sandbox', () => {
  it('starts, prints each request with codes masked, and never prints the apiKey or a given secret', async () => {
    const io = capture();
    const sandbox = gatewayFakeOf(
      await runCli(['sandbox', '--port', '0', '--api-key', apiKey, '--webhook-secret', secret, '--latency', '0'], io),
      io,
    );
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
    const sandbox = gatewayFakeOf(await runCli(['sandbox'], io), io);
    try {
      expect(sandbox.apiKey).toBe(apiKey);
      expect(io.lines.join('\n')).not.toContain(apiKey);
    } finally {
      await sandbox.close();
    }
  });
  it('prints the webhook URL as origin and path only: never its query, in the banner or in webhook attempt lines', async () => {
    const received: string[] = [];
    const receiver = createServer((request, response) => {
      received.push(request.url ?? '');
      request.resume();
      request.on('end', () => response.writeHead(200).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/verikit`;
    const io = capture();
    const sandbox = gatewayFakeOf(
      await runCli(['sandbox', '--webhook-url', `${hook}?token=query-secret-token-77`], io),
      io,
    );
    try {
      const initiated = await fetch(`${sandbox.ussdBaseUrl}/messagingserv/gateway/api/v1/ussd/initiate-verification`, {
        method: 'POST',
        headers: { apikey: sandbox.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ phoneNumber: '+2348031112233' }),
      });
      expect(initiated.status).toBe(200);
      expect(await sandbox.dialUssd('+2348031112233', { status: 'success' })).toMatchObject({ delivered: true });
      // The sandbox itself still calls the URL as given.
      expect(received).toEqual(['/hooks/verikit?token=query-secret-token-77']);
      const output = io.lines.join('\n');
      expect(output).toContain(`# webhooks: ${hook}`);
      expect(output).toMatch(
        new RegExp(`→ webhook \\S+ attempt 1 to ${hook.replaceAll('.', '\\.')}: HTTP 200, delivered`),
      );
      expect(output).not.toContain('query-secret-token-77');
      expect(output).not.toContain('?token');
    } finally {
      await sandbox.close();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });
  it('formats a webhook event without the query, user or password of its URL', () => {
    const line = formatEvent({
      type: 'webhook',
      id: 'msg_1',
      url: 'https://user:pass-word-9@hooks.example.com/in?sig=abc123secret#frag',
      attempt: 1,
      delivered: false,
      willRetry: true,
      error: 'network error',
    });
    expect(line).toContain('to https://hooks.example.com/in: network error, will retry');
    for (const hidden of ['abc123secret', 'pass-word-9', 'user', 'frag']) expect(line).not.toContain(hidden);
  });
  it('refuses a webhook URL carrying credentials, without printing them', async () => {
    const io = capture();
    const result = await runCli(['sandbox', '--webhook-url', 'http://admin:hunter2-pass@127.0.0.1:9/hook'], io);
    if (typeof result !== 'number') await result.close();
    expect(result).toBe(2);
    const errors = io.errors.join('\n');
    expect(errors).toContain('--webhook-url must not contain a username or password');
    expect(errors).not.toContain('hunter2-pass');
    expect(io.lines.join('\n')).not.toContain('hunter2-pass');
  });
  it('names VERIKIT_SANDBOX_API_KEY, not --api-key, when the bad apiKey came from the environment', async () => {
    const io = capture({ VERIKIT_SANDBOX_API_KEY: 'bad api key with spaces' });
    const result = await runCli(['sandbox'], io);
    if (typeof result !== 'number') await result.close();
    expect(result).toBe(2);
    const errors = io.errors.join('\n');
    expect(errors).toContain('VERIKIT_SANDBOX_API_KEY must be 1 to 4096 visible ASCII characters');
    expect(errors).not.toContain('--api-key');
    expect(errors).not.toContain('bad api key');
  });
  it('names --api-key when the bad apiKey came from the flag, even with the environment variable set', async () => {
    const io = capture({ VERIKIT_SANDBOX_API_KEY: apiKey });
    expect(await runCli(['sandbox', '--api-key', 'bad flag key'], io)).toBe(2);
    expect(io.errors.join('\n')).toContain('--api-key must be 1 to 4096 visible ASCII characters');
    expect(io.errors.join('\n')).not.toContain('VERIKIT_SANDBOX_API_KEY');
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
    const child = spawn(process.execPath, [bin, 'sandbox', '--port', '0', '--api-key', apiKey], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
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
      const response = await fetch(`${url}/gateway/api/v1/send/sms`, {
        method: 'POST',
        headers: { apikey: 'wrong' },
        body: '{}',
      });
      expect(response.status).toBe(401);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });
});
