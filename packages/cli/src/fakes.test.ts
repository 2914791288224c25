import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import {
  createAfricasTalkingProvider,
  createCallbackAllowList,
  parseUssdSession,
  ussdResponse,
} from '@verikit/africastalking';
import { createVerikit } from '@verikit/core';
import { createGatewayProvider } from '@verikit/gateway';
import { createDialInHandler, toNodeHandler } from '@verikit/http';
import { type ProviderV1, silentLogger } from '@verikit/provider';
import { createTermiiProvider } from '@verikit/termii';
import { createTwilioProvider } from '@verikit/twilio';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { capture, gatewayFakeOf } from './cli.fixtures.js';
import type { FakeProvider, FakeRun } from './fakes.js';
import { runCli } from './run-cli.js';

const context = () => ({ signal: new AbortController().signal, idempotencyKey: 'cli:effect:1', logger: silentLogger });
const secret = 'a-cli-test-flow-secret-of-at-least-32-characters';

afterEach(() => {
  vi.unstubAllEnvs();
});

/** A port n such that n and n+1 were both free a moment ago (each listened on, then closed). */
async function twoFreePorts(): Promise<number> {
  const listen = (port: number) =>
    new Promise<ReturnType<typeof createServer> | undefined>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(undefined));
      server.listen(port, '127.0.0.1', () => resolve(server));
    });
  for (;;) {
    const first = (await listen(0))!;
    const port = (first.address() as AddressInfo).port;
    const second = port < 65_535 ? await listen(port + 1) : undefined;
    await new Promise((resolve) => first.close(resolve));
    if (second !== undefined) {
      await new Promise((resolve) => second.close(resolve));
      return port;
    }
  }
}

async function started(provider: FakeProvider, args: readonly string[] = [], env: Record<string, string> = {}) {
  const io = capture(env);
  const run = await runCli(['sandbox', '--provider', provider, ...args], io);
  if (typeof run === 'number') throw new Error(`did not start (exit ${run}): ${io.errors.join('\n')}`);
  return { io, run };
}

/** The `NAME=value` lines the command printed: what a developer pastes into `.env`. */
function envBlock(lines: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    lines
      .filter((line) => /^[A-Z][A-Z0-9_]*=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

/** The env-only factory of each provider: no settings, everything from the pasted variables. */
const envOnly: Record<Exclude<FakeProvider, 'africastalking'>, () => ProviderV1> = {
  gateway: () => createGatewayProvider(),
  termii: () => createTermiiProvider(),
  twilio: () => createTwilioProvider(),
};

const lastCodeOf = (run: FakeRun, phoneNumber: string) => run.fake.lastCode(phoneNumber);

describe('verikit sandbox --provider: one table of fakes', () => {
  for (const provider of ['gateway', 'termii', 'twilio'] as const) {
    it(`${provider}: the printed .env block, pasted, runs a phone verification with the env-only factory`, async () => {
      const { io, run } = await started(provider);
      try {
        expect(run.provider).toBe(provider);
        const env = envBlock(io.lines);
        for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
        const verikit = createVerikit({ provider: envOnly[provider](), secret });
        const phoneNumber = '+2348031130010';
        const flow = await verikit.start({ kind: 'phone', phoneNumber });
        const view = await verikit.send(flow.id, { type: 'submit-code', code: lastCodeOf(run, phoneNumber)! });
        expect(view.status).toBe('verified');
        // SMS needs the sender the block names: no "from is required".
        await envOnly[provider]().sms!.send({ to: '+2348031130011', message: 'hello' }, context());
        expect(run.fake.lastMessage('+2348031130011')).toBe('hello');
        // Every fake's inbox page shows what its phones received, and the command prints where it is.
        expect(io.lines.some((line) => line.startsWith(`inbox: ${run.fake.url}/__inbox `))).toBe(true);
        const inbox = await (await fetch(run.fake.inboxUrl!)).text();
        expect(inbox).toContain(`verikit ${provider} fake`);
        expect(inbox).toContain('<p class="text">hello</p>');
      } finally {
        await run.close();
      }
    });
  }
  it('gateway: the block names every GATEWAY_ variable, the webhook secret and the attempt limit', async () => {
    const { io, run } = await started('gateway');
    try {
      const env = envBlock(io.lines);
      expect(Object.keys(env)).toEqual([
        'GATEWAY_API_KEY',
        'GATEWAY_BASE_URL',
        'GATEWAY_USSD_BASE_URL',
        'GATEWAY_SENDER',
        'VERIKIT_WEBHOOK_SECRET',
        'VERIKIT_MAX_ATTEMPTS',
      ]);
      const fake = gatewayFakeOf(run, io);
      expect(env).toMatchObject({ GATEWAY_BASE_URL: fake.baseUrl, VERIKIT_WEBHOOK_SECRET: fake.webhookSecret });
      // USSD initiation has a base address of its own (another host in the interface): a second listener.
      expect(env['GATEWAY_USSD_BASE_URL']).toBe(fake.ussdBaseUrl);
      expect(fake.ussdBaseUrl).not.toBe(fake.baseUrl);
    } finally {
      await run.close();
    }
  });
  it('gateway: with --port n, the USSD base address listens on n+1', async () => {
    const port = await twoFreePorts();
    const { io, run } = await started('gateway', ['--port', String(port)]);
    try {
      expect(envBlock(io.lines)).toMatchObject({
        GATEWAY_BASE_URL: `http://127.0.0.1:${port}`,
        GATEWAY_USSD_BASE_URL: `http://127.0.0.1:${port + 1}`,
      });
    } finally {
      await run.close();
    }
  });
  it('termii: prints requests and magic numbers, and never a given key', async () => {
    const { io, run } = await started('termii', ['--api-key', 'cli-termii-key-99']);
    if (run.provider !== 'termii') throw new Error('not termii');
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
      expect(output).toContain('TERMII_SENDER_ID=');
      expect(output).toMatch(/POST \/api\/sms\/send 200/);
      expect(output).toContain('+2348039900007  dnd');
      expect(output).not.toContain('cli-termii-key-99');
    } finally {
      await run.close();
    }
  });
  it('twilio: starts the fake with the settings a provider needs', async () => {
    const { io, run } = await started('twilio', ['--latency', '0']);
    if (run.provider !== 'twilio') throw new Error('not twilio');
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
  it('twilio: the printed .env block, pasted, sends WhatsApp through the template with the env-only factory', async () => {
    const { io, run } = await started('twilio');
    if (run.provider !== 'twilio') throw new Error('not twilio');
    try {
      const env = envBlock(io.lines);
      expect(env).toMatchObject({
        TWILIO_WHATSAPP_FROM: '+14155238886',
        TWILIO_WHATSAPP_CONTENT_SID: run.fake.whatsappContentSid,
      });
      for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
      await createTwilioProvider().whatsapp!.send({ phoneNumber: '+2348031130012', message: '482913' }, context());
      expect(run.fake.lastMessage('+2348031130012')).toBe(
        '482913 is your verification code. For your security, do not share this code.',
      );
    } finally {
      await run.close();
    }
  });
  it('africastalking: the printed .env block, pasted, sends SMS with the env-only factory, and the fake dials --webhook-url', async () => {
    const app = serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: async (request) => {
        const session = parseUssdSession(await request.text());
        return ussdResponse('END', `Dialled by ${session.phoneNumber} with ${session.text}`);
      },
    });
    await new Promise((resolve) => app.once('listening', resolve));
    const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
    const { io, run } = await started('africastalking', ['--webhook-url', `${appUrl}/ussd`]);
    try {
      if (run.provider !== 'africastalking') throw new Error('not africastalking');
      const env = envBlock(io.lines);
      expect(Object.keys(env)).toEqual([
        'AFRICASTALKING_USERNAME',
        'AFRICASTALKING_API_KEY',
        'AFRICASTALKING_BASE_URL',
        'AFRICASTALKING_SENDER_ID',
        'AFRICASTALKING_USSD_SERVICE_CODE',
      ]);
      for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
      await createAfricasTalkingProvider().sms!.send({ to: '+254711000150', message: 'hello' }, context());
      expect(run.fake.lastMessage('+254711000150')).toBe('hello');
      expect(io.lines).toContain(
        `inbox: ${run.fake.url}/__inbox  (open it in a browser: what the phones received, dialling your USSD callback, the callbacks sent)`,
      );
      const dialled = await fetch(`${run.fake.url}/__fake/ussd/dial`, {
        method: 'POST',
        body: JSON.stringify({ phoneNumber: '+254711000151', code: '*384*1234*58#' }),
      });
      expect(await dialled.json()).toMatchObject({ kind: 'END', screen: 'Dialled by +254711000151 with 58' });
      const output = io.lines.join('\n');
      expect(output).toMatch(/POST \/version1\/messaging 201/);
      expect(output).toContain('+254711999006  dnd');
    } finally {
      await run.close();
      await new Promise((resolve) => app.close(resolve));
    }
  });
  it('africastalking: the printed .env block, pasted, runs a dial-in flow through createDialInHandler', async () => {
    // The application listens first (its URL is --webhook-url); its engine is built from the block printed after.
    let route: ((request: IncomingMessage, response: ServerResponse) => void) | undefined;
    const app = createServer((request, response) => route!(request, response)).listen(0, '127.0.0.1');
    await once(app, 'listening');
    const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/ussd`;
    const { io, run } = await started('africastalking', ['--webhook-url', appUrl]);
    try {
      if (run.provider !== 'africastalking') throw new Error('not africastalking');
      const env = envBlock(io.lines);
      expect(env['AFRICASTALKING_USSD_SERVICE_CODE']).toBe(run.fake.serviceCode);
      for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
      const verikit = createVerikit({ provider: createAfricasTalkingProvider(), secret });
      // The allow-list the printed note asks for: the fake dials from loopback.
      route = toNodeHandler(createDialInHandler({ verikit, allowList: createCallbackAllowList(['127.0.0.1']) }));
      const phoneNumber = '+2348031130030';
      const flow = await verikit.start({ kind: 'dial-in', phoneNumber });
      expect(flow.ussdCode).toMatch(/^\*384\*1234\*\d{6}#$/);
      // The dial as the printed line says: POST …/__fake/ussd/dial {"phoneNumber","code"}.
      expect(io.lines.join('\n')).toContain(`POST ${run.fake.url}/__fake/ussd/dial {"phoneNumber","code"}`);
      const dialled = await fetch(`${run.fake.url}/__fake/ussd/dial`, {
        method: 'POST',
        body: JSON.stringify({ phoneNumber, code: flow.ussdCode }),
      });
      expect(await dialled.json()).toMatchObject({ outcome: 'answered', kind: 'END' });
      expect((await verikit.get(flow.id)).status).toBe('verified');
    } finally {
      await run.close();
      await new Promise((resolve) => app.close(resolve));
    }
  });
  it('refuses an unknown provider and gateway-only flags, with exit code 2', async () => {
    const io = capture();
    expect(await runCli(['sandbox', '--provider', 'vonage'], io)).toBe(2);
    expect(await runCli(['sandbox', '--provider', 'termii', '--webhook-url', 'http://127.0.0.1:9/x'], io)).toBe(2);
    expect(await runCli(['sandbox', '--provider', 'twilio', '--max-attempts', '7'], io)).toBe(2);
    expect(await runCli(['sandbox', '--provider', 'twilio', '--port', 'abc'], io)).toBe(2);
    expect(io.errors).toEqual([
      'verikit sandbox: --provider must be gateway, termii, twilio or africastalking',
      'verikit sandbox: --webhook-url is for the gateway, not --provider termii',
      'verikit sandbox: --max-attempts is for the gateway, not --provider twilio',
      'verikit sandbox: --port must be a whole number from 0 to 65535',
    ]);
  });
});

describe('verikit sandbox: the attempt limit follows the engine', () => {
  it('with VERIKIT_MAX_ATTEMPTS=7, the right code after six wrong ones is verified (not "not correct")', async () => {
    const { io, run } = await started('gateway', [], { VERIKIT_MAX_ATTEMPTS: '7' });
    try {
      const env = envBlock(io.lines);
      expect(env['VERIKIT_MAX_ATTEMPTS']).toBe('7');
      for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
      const verikit = createVerikit({
        provider: createGatewayProvider(),
        secret,
        policies: { maxAttempts: Number(env['VERIKIT_MAX_ATTEMPTS']) },
      });
      const phoneNumber = '+2348031130020';
      const flow = await verikit.start({ kind: 'phone', phoneNumber });
      for (let wrong = 0; wrong < 6; wrong += 1) await verikit.send(flow.id, { type: 'submit-code', code: '000000' });
      const view = await verikit.send(flow.id, { type: 'submit-code', code: run.fake.lastCode(phoneNumber)! });
      expect(view.status).toBe('verified');
    } finally {
      await run.close();
    }
  });
  it('--latency and --slow say what a bad value is not: a whole number, or 0 or more', async () => {
    const io = capture();
    for (const args of [
      ['--latency', '-5'],
      ['--latency', 'soon'],
      ['--slow', '1.5'],
      ['--latency', '1234567'],
    ])
      expect(await runCli(['sandbox', ...args], io)).toBe(2);
    expect(io.errors).toEqual([
      'verikit sandbox: --latency must be 0 or more',
      'verikit sandbox: --latency must be a whole number',
      'verikit sandbox: --slow must be a whole number',
      'verikit sandbox: --latency must be at most 999999',
    ]);
  });
  it('--max-attempts sets it too, and a bad value names where it came from', async () => {
    const io = capture({ VERIKIT_MAX_ATTEMPTS: 'many' });
    expect(await runCli(['sandbox'], io)).toBe(2);
    expect(await runCli(['sandbox', '--max-attempts', '0'], io)).toBe(2);
    expect(io.errors).toEqual([
      'verikit sandbox: VERIKIT_MAX_ATTEMPTS must be a whole number',
      'verikit sandbox: --max-attempts must be a whole number from 1 to 100',
    ]);
    const { run } = await started('gateway', ['--max-attempts', '9']);
    try {
      expect(gatewayFakeOf(run, { errors: [] }).maxAttempts).toBe(9);
    } finally {
      await run.close();
    }
  });
});
