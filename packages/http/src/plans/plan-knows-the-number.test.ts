import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createVerikit, type FlowView } from '@verikit/core';
import { InvalidInputError, type Logger } from '@verikit/provider';
import { createTermiiProvider, type TermiiProviderSettings } from '@verikit/termii';
import { startTermiiFake, termiiMagicNumbers, type TermiiFakeOptions } from '@verikit/termii/fake';
import { createFlowHandler } from '../create-flow-handler.js';
import { toNodeHandler } from '../node/node-adapter.js';

// A plan that knows the number (decision 1690), over real HTTP: the browser's start reaches the flow handler, the
// engine asks Termii's Search API (the fake, on loopback) whether the number is on Do-Not-Disturb, and a plan of
// sms, whatsapp, voice leaves SMS out for a number Termii reports `DND blacklisted`.

const dnd = Object.entries(termiiMagicNumbers).find(([, behaviour]) => behaviour === 'dnd')![0];
const plain = '+2348031234567';
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function setup(settings: Partial<TermiiProviderSettings>, fakeOptions: TermiiFakeOptions = {}) {
  const fake = await startTermiiFake(fakeOptions);
  closers.push(() => fake.close());
  const lookups: string[] = [];
  fake.onRequest((request) => {
    if (request.path === '/api/check/dnd') lookups.push(`${request.method} ${request.status}`);
  });
  const warnings: Array<{ message: string; fields?: Record<string, unknown> }> = [];
  const lines: string[] = [];
  const line = (message: string, fields?: Record<string, unknown>) =>
    void lines.push(JSON.stringify([message, fields]));
  const logger: Logger = {
    debug: line,
    info: line,
    warn: (message, fields) => {
      line(message, fields);
      warnings.push({ message, ...(fields === undefined ? {} : { fields }) });
    },
    error: line,
  };
  const provider = createTermiiProvider({
    apiKey: fake.apiKey,
    baseUrl: fake.baseUrl,
    senderId: 'Acme',
    whatsappFrom: 'Acme Device',
    ...settings,
  });
  const verikit = createVerikit({ provider, logger, secret: 'plan-knows-the-number-secret-0123456789' });
  closers.push(() => verikit.close());
  const server = createServer(toNodeHandler(createFlowHandler({ verikit, webhookPath: false }))).listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const start = async (body: Record<string, unknown>) => {
    const answer = await fetch(`${url}/flows`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'phone', ...body }),
    });
    expect(answer.status).toBe(201);
    return (await answer.json()) as FlowView;
  };
  return { fake, verikit, start, lookups, warnings, lines };
}

const lookup = { otpRoute: 'generic', dndLookup: true } as const;

describe('a plan that knows the number: Termii DND lookup', () => {
  it('leaves SMS out for a number Termii reports DND blacklisted: the first code goes by WhatsApp, and checks', async () => {
    const { fake, verikit, start, lookups, lines } = await setup(lookup);
    const flow = await start({ phoneNumber: dnd, channels: ['sms', 'whatsapp', 'voice'], escalateAfterMs: 45_000 });
    expect(flow.channel).toBe('whatsapp');
    expect(flow.next?.channel).toBe('voice');
    expect(lookups).toEqual(['GET 200']);
    // The key went in the query string Termii reads (the fake checked it), and into no log line.
    expect(lines.some((logged) => logged.includes('/api/check/dnd'))).toBe(true);
    expect(lines.join('\n')).not.toContain(fake.apiKey);
    expect(fake.outbox.map((message) => message.channel)).toEqual(['whatsapp']);
    // SMS is not in this flow's plan: asking for it is refused, and nothing is sent.
    await expect(verikit.send(flow.id, { type: 'resend', channel: 'sms' })).rejects.toMatchObject({
      code: 'event_not_allowed',
    });
    expect(fake.outbox).toHaveLength(1);
    await expect(verikit.send(flow.id, { type: 'submit-code', code: fake.lastCode(dnd)! })).resolves.toMatchObject({
      status: 'verified',
    });
  });

  it('keeps the plan for a number not on DND: the first code goes by SMS', async () => {
    const { fake, start, lookups } = await setup(lookup);
    const flow = await start({ phoneNumber: plain, channels: ['sms', 'whatsapp', 'voice'] });
    expect(flow.channel).toBe('sms');
    expect(lookups).toEqual(['GET 200']);
    expect(fake.outbox.map((message) => message.channel)).toEqual(['sms']);
  });

  it('makes no lookup for a plan of one channel, nor without dndLookup', async () => {
    const one = await setup(lookup);
    expect((await one.start({ phoneNumber: dnd, channel: 'sms' })).channel).toBe('sms');
    expect(one.lookups).toEqual([]);
    const without = await setup({ otpRoute: 'generic' });
    expect((await without.start({ phoneNumber: dnd, channels: ['sms', 'whatsapp'] })).channel).toBe('sms');
    expect(without.lookups).toEqual([]);
  });

  it('starts with the plan as asked when the lookup fails, and says so without the number', async () => {
    const failing = () => {
      throw new Error('search down');
    };
    const { fake, start, lookups, warnings } = await setup(lookup, { dndNumbers: failing });
    const flow = await start({ phoneNumber: dnd, channels: ['sms', 'whatsapp'] });
    expect(flow.channel).toBe('sms');
    expect(lookups).toEqual(['GET 500']);
    expect(fake.outbox).toHaveLength(0); // the generic route never delivers to the DND number: the fake drops it
    const warned = warnings.find((warning) => warning.message === 'verikit.phone.reach-failed');
    expect(warned?.fields).toMatchObject({ provider: 'termii', error: 'provider_unavailable' });
    expect(JSON.stringify(warnings)).not.toMatch(/2348039900007/);
  });

  it('refuses dndLookup on the dnd route, which reaches numbers on DND already', () => {
    expect(() => createTermiiProvider({ apiKey: 'k', dndLookup: true })).toThrow(InvalidInputError);
    expect(() => createTermiiProvider({ apiKey: 'k', dndLookup: true, otpRoute: 'dnd' })).toThrow(
      /otpRoute: 'generic'/,
    );
  });
});
