import { silentLogger } from '@verikit/provider';
import { createTermiiProvider } from '@verikit/termii';
import { createTwilioProvider } from '@verikit/twilio';
import { describe, expect, it } from 'vitest';
import type { CliIo } from './cli-io.js';
import { runCli } from './run-cli.js';

function capture(): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (line) => lines.push(line), err: (line) => errors.push(line), env: {} };
}
const context = () => ({ signal: new AbortController().signal, idempotencyKey: 'cli:effect:1', logger: silentLogger });

describe('verikit sandbox --provider', () => {
  it('termii: starts the fake, prints its settings and requests, never the given key', async () => {
    const io = capture();
    const run = await runCli(['sandbox', '--provider', 'termii', '--api-key', 'cli-termii-key-99'], io);
    if (typeof run === 'number' || !('provider' in run) || run.provider !== 'termii')
      throw new Error(`did not start: ${io.errors.join('\n')}`);
    try {
      const provider = createTermiiProvider({
        apiKey: 'cli-termii-key-99',
        baseUrl: run.fake.baseUrl,
        senderId: 'Acme',
      });
      await provider.sms!.send({ to: '+2348031130001', message: 'hello' }, context());
      expect(run.fake.lastMessage('+2348031130001')).toBe('hello');
      const output = io.lines.join('\n');
      expect(output).toContain(`TERMII_BASE_URL=${run.fake.baseUrl}`);
      expect(output).toMatch(/POST \/api\/sms\/send 200/);
      expect(output).toContain('+2348039900007  dnd');
      expect(output).not.toContain('cli-termii-key-99');
    } finally {
      await run.close();
    }
  });
  it('twilio: starts the fake with the settings a provider needs', async () => {
    const io = capture();
    const run = await runCli(['sandbox', '--provider', 'twilio', '--latency', '0'], io);
    if (typeof run === 'number' || !('provider' in run) || run.provider !== 'twilio')
      throw new Error(`did not start: ${io.errors.join('\n')}`);
    try {
      const provider = createTwilioProvider({ ...run.fake.settings });
      const { requestId } = await provider.phone!.send({ phoneNumber: '+2348031130002', channel: 'sms' }, context());
      await expect(
        provider.phone!.check({ requestId, code: run.fake.lastCode('+2348031130002')! }, context()),
      ).resolves.toEqual({ valid: true });
      expect(io.lines.join('\n')).toContain(`TWILIO_ACCOUNT_SID=${run.fake.settings.accountSid}`);
    } finally {
      await run.close();
    }
  });
  it('refuses an unknown provider and gateway-only flags, with exit code 2', async () => {
    const io = capture();
    expect(await runCli(['sandbox', '--provider', 'vonage'], io)).toBe(2);
    expect(await runCli(['sandbox', '--provider', 'termii', '--webhook-url', 'http://127.0.0.1:9/x'], io)).toBe(2);
    expect(await runCli(['sandbox', '--provider', 'twilio', '--port', 'abc'], io)).toBe(2);
    expect(io.errors.join('\n')).toContain('--provider must be gateway, termii or twilio');
  });
});
