import { createHmac, randomUUID } from 'node:crypto';
import { createTestProviderV1, ManualClock } from '@verikit/testing';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createVerikit, StoreError, type FlowStore, KeyvFlowStore } from '@verikit/core';
import { InvalidInputError, type Logger, type ProviderEventV1, type RawWebhookV1, parseInput } from '@verikit/provider';
import { WebhookVerificationError } from './webhook-verification-error.js';
import { allowUnsignedConsent, type WebhookOptions } from './webhook-options.js';
import { webHandlerOf } from './create-webhook-handler.js';
import { webhookRouteWith } from './webhook-route.js';
import { httpStatusOf } from '../errors/http-status.js';
import type { WebhookResponseBody } from './webhook-response.js';

/** The webhook route on test doubles, as a Web handler. */
const webhookEndpoint = (...args: Parameters<typeof webhookRouteWith>) => webHandlerOf(webhookRouteWith(...args));

const engineSecret = 'engine-secret-engine-secret-engine-secret';
const keyBytes = Buffer.from('verikit-webhook-test-key-32-bytes');
const webhookSecret = `whsec_${keyBytes.toString('base64')}`;
const phoneNumber = '+2348012345678';
const otherPhoneNumber = '+2348098765432';
const url = 'https://app.example/verikit/webhooks';

/** The service's payload, parsed the way a provider's `webhooks.parse` would (small, strict). */
function parseServiceWebhook(webhook: RawWebhookV1): ProviderEventV1 | null {
  let json: unknown;
  try {
    json = JSON.parse(webhook.body);
  } catch (cause) {
    throw new InvalidInputError([{ field: 'body', message: 'is not valid JSON' }], { cause });
  }
  const { event } = parseInput(z.object({ event: z.string({ error: 'must be a string' }) }), json);
  if (event !== 'USSD_VERIFICATION') return null;
  const data = parseInput(
    z.object({
      phoneNumber: z.string({ error: 'must be a string' }),
      status: z.enum(['success', 'failed'], { error: 'must be success or failed' }),
    }),
    json,
  );
  return { type: 'ussd-verification', phoneNumber: data.phoneNumber, status: data.status };
}

interface LogLine {
  level: string;
  message: string;
  fields?: Record<string, unknown>;
}

function capturingLogger(lines: LogLine[]): Logger {
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    void lines.push({ level, message, ...(fields ? { fields } : {}) });
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** A real store that fails the next `compareAndSetFlow` calls on demand: a store outage. */
class FlakyStore implements FlowStore {
  failWrites = 0;
  constructor(readonly inner: FlowStore = new KeyvFlowStore()) {}
  getFlow(id: string) {
    return this.inner.getFlow(id);
  }
  async compareAndSetFlow(...args: Parameters<FlowStore['compareAndSetFlow']>) {
    if (this.failWrites > 0) {
      this.failWrites -= 1;
      throw new StoreError('the flow store failed to write a flow', { cause: new Error('ECONNREFUSED') });
    }
    return this.inner.compareAndSetFlow(...args);
  }
  failRouteReads = 0;
  getRoute(key: string) {
    if (this.failRouteReads > 0) {
      this.failRouteReads -= 1;
      return Promise.reject(new StoreError('the flow store failed to read a route'));
    }
    return this.inner.getRoute(key);
  }
  setRoute(key: string, flowId: string, ttlMs: number) {
    return this.inner.setRoute(key, flowId, ttlMs);
  }
  claim(key: string, ttlMs: number) {
    return this.inner.claim(key, ttlMs);
  }
  consume(...args: Parameters<FlowStore['consume']>) {
    return this.inner.consume(...args);
  }
}

interface SetupOptions {
  webhooks?: WebhookOptions;
  /** `null`: the provider has no parser. */
  parse?: ((webhook: RawWebhookV1) => ProviderEventV1 | null) | null;
  store?: FlowStore;
}

async function setup({
  webhooks = { secret: webhookSecret },
  parse = parseServiceWebhook,
  store = new KeyvFlowStore(),
}: SetupOptions = {}) {
  // A clock far from the real one: a check against Date.now() would refuse every webhook here.
  const clock = new ManualClock(Date.UTC(2031, 5, 1, 12));
  const provider = Object.assign(createTestProviderV1(), { webhooks: parse ? { parse } : undefined });
  const lines: LogLine[] = [];
  const logger = capturingLogger(lines);
  const verikit = createVerikit({ provider, secret: engineSecret, clock, logger, store });
  const handler = webhookEndpoint({ receive: verikit.receive, parse: parse ?? (() => null), clock, logger }, webhooks);
  const flow = await verikit.start({ kind: 'ussd', phoneNumber });
  const bystander = await verikit.start({ kind: 'ussd', phoneNumber: otherPhoneNumber });
  expect(flow.status).toBe('awaiting-dial');
  const responses: WebhookResponseBody[] = [];

  async function deliver(request: Request): Promise<{ status: number; body: WebhookResponseBody }> {
    const response = await handler(request);
    const body = (await response.json()) as WebhookResponseBody;
    responses.push(body);
    return { status: response.status, body };
  }

  /** The raw stored version: it changes with every committed change. */
  async function versionOf(flowId: string): Promise<number> {
    return (await store.getFlow(flowId))!.version;
  }

  function sign(
    body: string,
    options: { id?: string; at?: number; secret?: string | Uint8Array; headers?: Record<string, string> } = {},
  ): Request {
    const id = options.id ?? `msg_${randomUUID()}`;
    const at = options.at ?? clock.now();
    const secret = options.secret ?? webhookSecret;
    const signer = typeof secret === 'string' ? new Webhook(secret) : new Webhook(secret, { format: 'raw' });
    return new Request(url, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at / 1000)),
        'webhook-signature': signer.sign(id, new Date(at), body),
        ...options.headers,
      },
    });
  }

  return { clock, provider, verikit, handler, store, flow, bystander, lines, responses, deliver, versionOf, sign };
}

const ussdBody = (status: 'success' | 'failed' = 'success', number = phoneNumber) =>
  JSON.stringify({ event: 'USSD_VERIFICATION', phoneNumber: number, status });

describe('a valid Standard Webhooks delivery', () => {
  it('advances exactly the flow of its phone number, once', async () => {
    const t = await setup();
    const before = await t.versionOf(t.flow.id);
    const bystanderBefore = await t.versionOf(t.bystander.id);

    const { status, body } = await t.deliver(t.sign(ussdBody()));

    expect(status).toBe(200);
    expect(body).toEqual({ status: 'applied', flowId: t.flow.id });
    expect((await t.verikit.get(t.flow.id)).status).toBe('verified');
    expect(await t.versionOf(t.flow.id)).toBe(before + 1);
    expect(await t.versionOf(t.bystander.id)).toBe(bystanderBefore);
    expect((await t.verikit.get(t.bystander.id)).status).toBe('awaiting-dial');
  });

  it('fails the flow when the service reports a failed dial', async () => {
    const t = await setup();
    const { status, body } = await t.deliver(t.sign(ussdBody('failed')));
    expect(status).toBe(200);
    expect(body.status).toBe('applied');
    const view = await t.verikit.get(t.flow.id);
    expect(view.status).toBe('failed');
    expect(view.error?.code).toBe('dial_failed');
  });

  it('accepts a raw (non-whsec_) secret as its UTF-8 bytes', async () => {
    const raw = 'a-raw-shared-secret-from-a-config-file';
    const t = await setup({ webhooks: { secret: raw } });
    const { status } = await t.deliver(t.sign(ussdBody(), { secret: new TextEncoder().encode(raw) }));
    expect(status).toBe(200);
    expect((await t.verikit.get(t.flow.id)).status).toBe('verified');
  });

  it('accepts any one matching signature among several (secret rotation)', async () => {
    const t = await setup();
    const genuine = t.sign(ussdBody(), { id: 'msg_rotation' });
    const old = new Webhook(`whsec_${Buffer.from('an-older-secret-an-older-secret!').toString('base64')}`);
    const oldSignature = old.sign('msg_rotation', new Date(t.clock.now()), ussdBody());
    genuine.headers.set(
      'webhook-signature',
      `v1a,bm90LWVkMjU1MTk= ${oldSignature} ${genuine.headers.get('webhook-signature')!}`,
    );
    expect((await t.deliver(genuine)).status).toBe(200);
  });

  it('accepts the timestamp at the edges of the window and refuses it one second beyond', async () => {
    const t = await setup();
    expect(
      (await t.deliver(t.sign(ussdBody('success', '+2348000000001'), { at: t.clock.now() - 300_000 }))).status,
    ).toBe(202);
    expect(
      (await t.deliver(t.sign(ussdBody('success', '+2348000000001'), { at: t.clock.now() + 300_000 }))).status,
    ).toBe(202);
    expect((await t.deliver(t.sign(ussdBody(), { at: t.clock.now() - 301_000 }))).status).toBe(401);
    expect((await t.deliver(t.sign(ussdBody(), { at: t.clock.now() + 301_000 }))).status).toBe(401);
    expect((await t.verikit.get(t.flow.id)).status).toBe('awaiting-dial');
  });
});

describe('a webhook that must change nothing', () => {
  it('refuses one signed with another secret (401) and does not burn its id', async () => {
    const t = await setup();
    const before = await t.versionOf(t.flow.id);
    const forged = t.sign(ussdBody(), {
      id: 'msg_forged',
      secret: `whsec_${Buffer.from('not-the-configured-secret-at-all').toString('base64')}`,
    });

    const { status, body } = await t.deliver(forged);

    expect(status).toBe(401);
    expect(body.status).toBe('unverified');
    expect(body.error?.code).toBe('webhook_unverified');
    expect(await t.versionOf(t.flow.id)).toBe(before);
    // The genuine message with that id still goes through: the forgery claimed nothing.
    expect((await t.deliver(t.sign(ussdBody(), { id: 'msg_forged' }))).body.status).toBe('applied');
  });

  it('refuses a body changed after signing', async () => {
    const t = await setup();
    const before = await t.versionOf(t.flow.id);
    const signed = t.sign(ussdBody('failed'));
    const tampered = new Request(url, { method: 'POST', headers: signed.headers, body: ussdBody('success') });
    expect((await t.deliver(tampered)).status).toBe(401);
    expect(await t.versionOf(t.flow.id)).toBe(before);
  });

  it('refuses a body re-serialized by a JSON body parser (whitespace changed)', async () => {
    const t = await setup();
    const sent = JSON.stringify({ event: 'USSD_VERIFICATION', phoneNumber, status: 'success' }, null, 2);
    const signed = t.sign(sent);
    const reserialized = new Request(url, {
      method: 'POST',
      headers: signed.headers,
      body: JSON.stringify(JSON.parse(sent)),
    });
    expect((await t.deliver(reserialized)).status).toBe(401);
    expect((await t.verikit.get(t.flow.id)).status).toBe('awaiting-dial');
  });

  it('refuses a stale webhook: the clock moved past the 5-minute window', async () => {
    const t = await setup();
    const request = t.sign(ussdBody());
    t.clock.advance(5 * 60_000 + 1000);
    const before = await t.versionOf(t.flow.id);
    const { status, body } = await t.deliver(request);
    expect(status).toBe(401);
    expect(body.error?.message).toMatch(/too old/);
    expect(await t.versionOf(t.flow.id)).toBe(before);
  });

  it('refuses a webhook timestamped too far in the future', async () => {
    const t = await setup();
    const before = await t.versionOf(t.flow.id);
    const { status, body } = await t.deliver(t.sign(ussdBody(), { at: t.clock.now() + 10 * 60_000 }));
    expect(status).toBe(401);
    expect(body.error?.message).toMatch(/future/);
    expect(await t.versionOf(t.flow.id)).toBe(before);
  });

  it('honours a configured tolerance', async () => {
    const t = await setup({ webhooks: { secret: webhookSecret, toleranceSeconds: 30 } });
    expect((await t.deliver(t.sign(ussdBody(), { at: t.clock.now() - 31_000 }))).status).toBe(401);
    expect((await t.deliver(t.sign(ussdBody(), { at: t.clock.now() - 30_000 }))).status).toBe(200);
  });

  it('answers a replay 200 duplicate and changes nothing, even re-signed with a fresh timestamp', async () => {
    const t = await setup();
    const body = ussdBody();
    expect((await t.deliver(t.sign(body, { id: 'msg_1' }))).body.status).toBe('applied');
    const after = await t.versionOf(t.flow.id);

    const replay = await t.deliver(t.sign(body, { id: 'msg_1' }));
    t.clock.advance(60_000);
    const redelivery = await t.deliver(t.sign(body, { id: 'msg_1' }));

    expect(replay).toEqual({ status: 200, body: { status: 'duplicate' } });
    expect(redelivery).toEqual({ status: 200, body: { status: 'duplicate' } });
    expect(await t.versionOf(t.flow.id)).toBe(after);
  });

  it('does not let a replayed success verify a newer flow of the same number', async () => {
    const t = await setup();
    expect((await t.deliver(t.sign(ussdBody('failed'), { id: 'msg_failed' }))).body.status).toBe('applied');
    const success = t.sign(ussdBody('success'), { id: 'msg_success' });
    expect((await t.deliver(success.clone())).body.status).toBe('no-active-flow');
    t.clock.advance(60_000);
    const restarted = await t.verikit.send(t.flow.id, { type: 'restart' });
    expect(restarted.status).toBe('awaiting-dial');
    const before = await t.versionOf(t.flow.id);

    expect((await t.deliver(success)).body.status).toBe('duplicate');
    expect(await t.versionOf(t.flow.id)).toBe(before);
    expect((await t.verikit.get(t.flow.id)).status).toBe('awaiting-dial');
  });

  it('answers 400 to a signed body that is not JSON', async () => {
    const t = await setup();
    const before = await t.versionOf(t.flow.id);
    const { status, body } = await t.deliver(t.sign('{"event": "USSD_VERIFICATION", phoneNumber'));
    expect(status).toBe(400);
    expect(body).toMatchObject({ status: 'malformed', error: { code: 'invalid_input', field: 'body' } });
    expect(await t.versionOf(t.flow.id)).toBe(before);
  });

  it('answers 400 to fields of the wrong type, naming the field', async () => {
    const t = await setup();
    const before = await t.versionOf(t.flow.id);
    const wrong = JSON.stringify({ event: 'USSD_VERIFICATION', phoneNumber: 2348012345678, status: true });
    const { status, body } = await t.deliver(t.sign(wrong));
    expect(status).toBe(400);
    expect(body.error?.field).toBe('phoneNumber');
    expect(await t.versionOf(t.flow.id)).toBe(before);
    const missing = await t.deliver(t.sign(JSON.stringify({ event: 'USSD_VERIFICATION', phoneNumber })));
    expect(missing.status).toBe(400);
    expect(missing.body.error?.field).toBe('status');
  });

  it('answers 401 when any signature header is missing', async () => {
    const t = await setup();
    const before = await t.versionOf(t.flow.id);
    for (const header of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const request = t.sign(ussdBody());
      request.headers.delete(header);
      const { status, body } = await t.deliver(request);
      expect(status, header).toBe(401);
      expect(body.error?.field).toBe('headers');
    }
    const bare = await t.deliver(new Request(url, { method: 'POST', body: ussdBody() }));
    expect(bare.status).toBe(401);
    expect(await t.versionOf(t.flow.id)).toBe(before);
  });

  it('answers 401 to a timestamp that is not whole seconds', async () => {
    const t = await setup();
    for (const timestamp of ['soon', '1e10', '-5', `${Math.floor(t.clock.now() / 1000)}.5`, '']) {
      const request = t.sign(ussdBody());
      request.headers.set('webhook-timestamp', timestamp);
      expect((await t.deliver(request)).status, timestamp).toBe(401);
    }
    expect((await t.verikit.get(t.flow.id)).status).toBe('awaiting-dial');
  });

  it('answers 413 to a megabyte body, declared or streamed without a length', async () => {
    const t = await setup();
    const before = await t.versionOf(t.flow.id);
    const huge = JSON.stringify({
      event: 'USSD_VERIFICATION',
      phoneNumber,
      status: 'success',
      padding: 'x'.repeat(1024 * 1024),
    });
    const declared = await t.deliver(t.sign(huge));
    expect(declared.status).toBe(413);
    expect(declared.body.status).toBe('too-large');

    const signed = t.sign(huge);
    const chunk = new TextEncoder().encode(huge);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let offset = 0; offset < chunk.length; offset += 16 * 1024)
          controller.enqueue(chunk.slice(offset, offset + 16 * 1024));
        controller.close();
      },
    });
    const headers = new Headers(signed.headers);
    headers.delete('content-length');
    const streamed = await t.deliver(
      new Request(url, { method: 'POST', headers, body: stream, duplex: 'half' } as RequestInit),
    );
    expect(streamed.status).toBe(413);
    expect(await t.versionOf(t.flow.id)).toBe(before);
  });

  it('answers 400 to a body that is not UTF-8', async () => {
    const t = await setup();
    const signed = t.sign(ussdBody());
    const bytes = new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]);
    const { status, body } = await t.deliver(
      new Request(url, { method: 'POST', headers: signed.headers, body: bytes }),
    );
    expect(status).toBe(400);
    expect(body.error?.field).toBe('body');
    expect((await t.verikit.get(t.flow.id)).status).toBe('awaiting-dial');
  });

  it('answers 405 to anything but POST', async () => {
    const t = await setup();
    for (const method of ['GET', 'PUT', 'DELETE', 'HEAD']) {
      const response = await t.handler(new Request(url, { method }));
      expect(response.status, method).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    }
  });

  it('changes no flow for any single-byte change to a signed body or its signature (property)', async () => {
    const t = await setup();
    const body = ussdBody();
    const template = t.sign(body, { id: 'msg_property' });
    const signature = template.headers.get('webhook-signature')!;
    const before = await t.versionOf(t.flow.id);
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.nat(), fc.integer({ min: 0x20, max: 0x7e }), async (inBody, position, code) => {
        const target = inBody ? body : signature;
        const index = position % target.length;
        fc.pre(target.charCodeAt(index) !== code);
        const changed = target.slice(0, index) + String.fromCharCode(code) + target.slice(index + 1);
        const headers = new Headers(template.headers);
        if (!inBody) headers.set('webhook-signature', changed);
        const { status } = await t.deliver(
          new Request(url, { method: 'POST', headers, body: inBody ? changed : body }),
        );
        expect(status).toBe(401);
      }),
      { numRuns: 150 },
    );
    expect(await t.versionOf(t.flow.id)).toBe(before);
    expect((await t.deliver(template)).body.status).toBe('applied');
  });
});

describe('events that apply to no flow', () => {
  it('acknowledges an unknown event with 202 ignored', async () => {
    const t = await setup();
    const before = await t.versionOf(t.flow.id);
    const { status, body } = await t.deliver(t.sign(JSON.stringify({ event: 'SMS_DELIVERED', messageId: 'm-1' })));
    expect(status).toBe(202);
    expect(body).toEqual({ status: 'ignored' });
    expect(await t.versionOf(t.flow.id)).toBe(before);
  });

  it('answers 202 no-active-flow for a number with no USSD flow, and for a finished flow', async () => {
    const t = await setup();
    const none = await t.deliver(t.sign(ussdBody('success', '+2348011111111')));
    expect(none).toEqual({ status: 202, body: { status: 'no-active-flow' } });

    expect((await t.deliver(t.sign(ussdBody()))).body.status).toBe('applied');
    const version = await t.versionOf(t.flow.id);
    const late = await t.deliver(t.sign(ussdBody('failed')));
    expect(late).toEqual({ status: 202, body: { status: 'no-active-flow' } });
    expect(await t.versionOf(t.flow.id)).toBe(version);
    expect((await t.verikit.get(t.flow.id)).status).toBe('verified');
  });

  it('answers 500 when the parser fails with an unexpected error, and logs only its code', async () => {
    const t = await setup({
      parse: () => {
        throw new TypeError(`cannot read ${phoneNumber}`);
      },
    });
    const { status, body } = await t.deliver(t.sign(ussdBody()));
    expect(status).toBe(500);
    expect(body.error?.code).toBe('webhook_parse_failed');
    expect(JSON.stringify(t.lines)).not.toContain('8012345678');
  });
});

describe('an event the engine refuses', () => {
  it('answers 400 malformed, not 500, when the parsed event is invalid (a redelivery would be refused again), and changes nothing', async () => {
    const t = await setup({ parse: (webhook) => ({ ...parseServiceWebhook(webhook)!, phoneNumber: '0801 234 5678' }) });
    const before = await t.versionOf(t.flow.id);
    const { status, body } = await t.deliver(t.sign(ussdBody()));
    expect(status).toBe(400);
    expect(body).toMatchObject({ status: 'malformed' });
    expect(await t.versionOf(t.flow.id)).toBe(before);
  });
});

describe('without a secret', () => {
  it('refuses every webhook with 401 and tells the developer how to configure one', async () => {
    const t = await setup({ webhooks: {} });
    const before = await t.versionOf(t.flow.id);
    const { status, body } = await t.deliver(t.sign(ussdBody()));
    expect(status).toBe(401);
    expect(body.error?.message).toMatch(/no webhook secret is configured/);
    expect(await t.versionOf(t.flow.id)).toBe(before);
    const hint = t.lines.find((line) => line.message === 'verikit.inbound.refused');
    expect(hint?.level).toBe('warn');
    expect(String(hint?.fields?.hint)).toMatch(/webhooks\.secret/);
  });

  it('accepts unsigned webhooks only when the user opts in by name, once per message', async () => {
    const t = await setup({ webhooks: { allowUnsigned: allowUnsignedConsent } });
    expect(t.lines.some((line) => line.level === 'warn' && line.message === 'verikit.inbound.unsigned-accepted')).toBe(
      true,
    );
    const unsigned = () =>
      new Request(url, { method: 'POST', body: ussdBody(), headers: { 'webhook-id': 'msg_unsigned' } });
    expect((await t.deliver(unsigned())).body).toEqual({ status: 'applied', flowId: t.flow.id });
    expect((await t.deliver(unsigned())).body).toEqual({ status: 'duplicate' });
    const withoutId = () => new Request(url, { method: 'POST', body: ussdBody('failed', otherPhoneNumber) });
    expect((await t.deliver(withoutId())).body.status).toBe('applied');
    expect((await t.deliver(withoutId())).body.status).toBe('duplicate');
  });

  it('still verifies when a secret is configured alongside the opt-in', async () => {
    const t = await setup({ webhooks: { secret: webhookSecret, allowUnsigned: allowUnsignedConsent } });
    expect((await t.deliver(new Request(url, { method: 'POST', body: ussdBody() }))).status).toBe(401);
  });

  it('rejects a near-miss of the opt-in words when the engine is configured', async () => {
    const deps = {
      receive: async () => ({ outcome: 'no-active-flow' as const }),
      parse: parseServiceWebhook,
      clock: new ManualClock(),
      logger: capturingLogger([]),
    };
    expect(() => webhookEndpoint(deps, { allowUnsigned: 'yes' as never })).toThrow(InvalidInputError);
    expect(() => webhookEndpoint(deps, { allowUnsigned: true as never })).toThrow(/allowUnsigned/);
  });
});

describe('the hmac-header scheme', () => {
  const hmacSecret = 'a-shared-secret-for-hmac-header-signing';
  const sign = (
    body: string,
    options: { secret?: string; algorithm?: 'sha256' | 'sha512'; encoding?: 'hex' | 'base64'; prefix?: string } = {},
  ) => {
    const digest = createHmac(options.algorithm ?? 'sha256', options.secret ?? hmacSecret)
      .update(body)
      .digest(options.encoding ?? 'hex');
    return new Request(url, {
      method: 'POST',
      body,
      headers: { 'X-Verikit-Signature': `${options.prefix ?? ''}${digest}` },
    });
  };

  it('applies a valid one, refuses a forged one, and answers a replay duplicate', async () => {
    const t = await setup({
      webhooks: { secret: hmacSecret, scheme: { type: 'hmac-header', header: 'X-Verikit-Signature' } },
    });
    const before = await t.versionOf(t.flow.id);
    const forged = await t.deliver(sign(ussdBody(), { secret: 'not-the-shared-secret-for-hmac-signing' }));
    expect(forged.status).toBe(401);
    expect(await t.versionOf(t.flow.id)).toBe(before);

    expect((await t.deliver(sign(ussdBody()))).body).toEqual({ status: 'applied', flowId: t.flow.id });
    expect(await t.versionOf(t.flow.id)).toBe(before + 1);
    expect((await t.deliver(sign(ussdBody()))).body).toEqual({ status: 'duplicate' });
    expect(await t.versionOf(t.flow.id)).toBe(before + 1);
  });

  it('reads a prefix, sha512 and base64 when configured', async () => {
    const t = await setup({
      webhooks: {
        secret: hmacSecret,
        scheme: {
          type: 'hmac-header',
          header: 'x-verikit-signature',
          algorithm: 'sha512',
          encoding: 'base64',
          prefix: 'sha512=',
        },
      },
    });
    expect((await t.deliver(sign(ussdBody(), { algorithm: 'sha512', encoding: 'base64' }))).status).toBe(401);
    expect(
      (await t.deliver(sign(ussdBody(), { algorithm: 'sha256', encoding: 'base64', prefix: 'sha512=' }))).status,
    ).toBe(401);
    expect(
      (await t.deliver(sign(ussdBody(), { algorithm: 'sha512', encoding: 'base64', prefix: 'sha512=' }))).status,
    ).toBe(200);
  });

  it('refuses a missing or non-hex signature header', async () => {
    const t = await setup({
      webhooks: { secret: hmacSecret, scheme: { type: 'hmac-header', header: 'x-verikit-signature' } },
    });
    expect((await t.deliver(new Request(url, { method: 'POST', body: ussdBody() }))).status).toBe(401);
    const request = sign(ussdBody());
    request.headers.set('x-verikit-signature', 'zz'.repeat(32));
    expect((await t.deliver(request)).status).toBe(401);
    expect((await t.verikit.get(t.flow.id)).status).toBe('awaiting-dial');
  });
});

describe('a custom verifier', () => {
  it('decides, with the injected clock, and supplies the id', async () => {
    const seen: number[] = [];
    const t = await setup({
      webhooks: {
        scheme: {
          verify({ headers, now }) {
            seen.push(now);
            if (headers['x-token'] !== 'let-me-in') throw new WebhookVerificationError('bad token');
            return { id: headers['x-delivery']! };
          },
        },
      },
    });
    const request = (token: string) =>
      new Request(url, { method: 'POST', body: ussdBody(), headers: { 'x-token': token, 'x-delivery': 'd-1' } });
    expect((await t.deliver(request('guess'))).status).toBe(401);
    expect((await t.deliver(request('let-me-in'))).body.status).toBe('applied');
    expect((await t.deliver(request('let-me-in'))).body.status).toBe('duplicate');
    expect(seen).toEqual([t.clock.now(), t.clock.now(), t.clock.now()]);
  });

  it('answers 400 when the verifier returns an unusable id', async () => {
    const t = await setup({ webhooks: { scheme: { verify: () => ({ id: 'has spaces and is\nmultiline' }) } } });
    const { status, body } = await t.deliver(new Request(url, { method: 'POST', body: ussdBody() }));
    expect(status).toBe(400);
    expect(body.error?.field).toBe('webhook-id');
    expect((await t.verikit.get(t.flow.id)).status).toBe('awaiting-dial');
  });
});

describe('failures while applying', () => {
  it('answers 503 on a store outage, and applies the redelivery instead of calling it a duplicate', async () => {
    const store = new FlakyStore();
    const t = await setup({ store });
    const before = await t.versionOf(t.flow.id);
    store.failWrites = 1;

    const failed = await t.deliver(t.sign(ussdBody(), { id: 'msg_outage' }));
    expect(failed.status).toBe(503);
    expect(failed.body).toMatchObject({ status: 'retry', error: { code: 'store_unavailable' } });
    expect(await t.versionOf(t.flow.id)).toBe(before);

    t.clock.advance(5_000);
    const retried = await t.deliver(t.sign(ussdBody(), { id: 'msg_outage' }));
    expect(retried).toEqual({ status: 200, body: { status: 'applied', flowId: t.flow.id } });
    expect(await t.versionOf(t.flow.id)).toBe(before + 1);

    expect((await t.deliver(t.sign(ussdBody(), { id: 'msg_outage' }))).body.status).toBe('duplicate');
  });

  it('answers 503 when the store cannot even be asked whether the message was seen', async () => {
    const store = new FlakyStore();
    const t = await setup({ store });
    const before = await t.versionOf(t.flow.id);
    store.failRouteReads = 1;
    const failed = await t.deliver(t.sign(ussdBody(), { id: 'msg_down' }));
    expect(failed).toMatchObject({ status: 503, body: { status: 'retry', error: { code: 'store_unavailable' } } });
    expect(await t.versionOf(t.flow.id)).toBe(before);
    expect((await t.deliver(t.sign(ussdBody(), { id: 'msg_down' }))).body.status).toBe('applied');
  });

  it('survives repeated outages: each failed attempt releases the message', async () => {
    const store = new FlakyStore();
    const t = await setup({ store });
    for (let attempt = 0; attempt < 3; attempt += 1) {
      store.failWrites = 1;
      expect((await t.deliver(t.sign(ussdBody(), { id: 'msg_flaky' }))).status).toBe(503);
    }
    expect((await t.deliver(t.sign(ussdBody(), { id: 'msg_flaky' }))).body.status).toBe('applied');
    expect((await t.verikit.get(t.flow.id)).status).toBe('verified');
  });

  it('applies concurrent deliveries of one message exactly once', async () => {
    const t = await setup();
    const before = await t.versionOf(t.flow.id);
    const results = await Promise.all(
      Array.from({ length: 8 }, () => t.deliver(t.sign(ussdBody(), { id: 'msg_burst' }))),
    );
    const statuses = results.map((result) => result.body.status);
    expect(statuses.filter((status) => status === 'applied')).toHaveLength(1);
    for (const result of results) {
      expect(['applied', 'duplicate', 'in-progress']).toContain(result.body.status);
      expect(result.status).toBe(result.body.status === 'in-progress' ? 409 : 200);
    }
    expect(await t.versionOf(t.flow.id)).toBe(before + 1);
  });
});

describe('secrets', () => {
  it('appear in no response body, log line or thrown error', async () => {
    const t = await setup();
    const store = new FlakyStore(t.store);
    const flakyEngine = createVerikit({
      provider: createTestProviderV1(),
      secret: engineSecret,
      clock: t.clock,
      store,
      logger: capturingLogger(t.lines),
    });
    const flaky = webhookEndpoint(
      {
        receive: flakyEngine.receive,
        parse: parseServiceWebhook,
        clock: t.clock,
        logger: capturingLogger(t.lines),
      },
      { secret: webhookSecret },
    );
    const signatures: string[] = [];
    const deliveries: Request[] = [
      t.sign('not json'),
      t.sign(JSON.stringify({ event: 'USSD_VERIFICATION', phoneNumber: 42, status: 'success' })),
      t.sign(ussdBody(), { secret: `whsec_${Buffer.from('forged-secret-forged-secret-forged').toString('base64')}` }),
      t.sign(ussdBody(), { at: t.clock.now() - 3_600_000 }),
      t.sign(ussdBody('success', '+2348011111111')),
      t.sign(ussdBody(), { id: 'msg_secret' }),
      t.sign(ussdBody(), { id: 'msg_secret' }),
      t.sign(ussdBody('failed', otherPhoneNumber)),
    ];
    for (const request of deliveries) signatures.push(request.headers.get('webhook-signature')!.slice(3));
    for (const request of deliveries) await t.deliver(request);
    store.failWrites = 1;
    await t.deliver(t.sign(ussdBody('failed', otherPhoneNumber)));
    const outage = flaky(t.sign(ussdBody('failed', otherPhoneNumber)));
    await expect(outage).resolves.toBeInstanceOf(Response);

    const errors: unknown[] = [];
    for (const secret of ['whsec_!!!', 'short']) {
      try {
        webhookEndpoint(
          { receive: t.verikit.receive, parse: parseServiceWebhook, clock: t.clock, logger: capturingLogger(t.lines) },
          { secret },
        );
      } catch (error) {
        errors.push(error);
      }
    }
    expect(errors).toHaveLength(2);

    const everything = JSON.stringify([
      t.responses,
      t.lines,
      errors.map((error) => ({ ...(error as object), message: (error as Error).message })),
    ]);
    expect(t.responses.some((body) => body.status === 'applied')).toBe(true);
    expect(t.lines.some((line) => line.message.startsWith('verikit.inbound.'))).toBe(true);
    for (const secret of [
      webhookSecret,
      keyBytes.toString('base64'),
      keyBytes.toString(),
      'whsec_!!!',
      engineSecret,
      ...signatures,
    ]) {
      expect(everything).not.toContain(secret);
    }
    for (const number of [phoneNumber, otherPhoneNumber, '+2348011111111'])
      expect(everything).not.toContain(number.slice(4));
    expect(everything).not.toContain('USSD_VERIFICATION');
  });
});

describe('configuration', () => {
  const deps = () => ({
    receive: async () => ({ outcome: 'no-active-flow' as const }),
    parse: parseServiceWebhook,
    clock: new ManualClock(),
    logger: capturingLogger([]),
  });

  it('fails at creation on a malformed or short secret, without echoing it', () => {
    expect(() => webhookEndpoint(deps(), { secret: 'whsec_not base64!' })).toThrow(/valid base64/);
    expect(() => webhookEndpoint(deps(), { secret: `whsec_${Buffer.from('short').toString('base64')}` })).toThrow(
      /at least 16 bytes/,
    );
    expect(() => webhookEndpoint(deps(), { secret: 'tooshort' })).toThrow(InvalidInputError);
    const malformed = () => webhookEndpoint(deps(), { secret: 'whsec_s3cr3t!!' });
    expect(malformed).toThrow(InvalidInputError);
    let error: unknown;
    try {
      malformed();
    } catch (caught) {
      error = caught;
    }
    expect(InvalidInputError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ field: 'webhooks.secret' });
    expect(httpStatusOf(error)).toBe(400);
    expect((error as Error).message).toMatch(/valid base64/);
    const thrown = error as Error & { issues?: unknown };
    expect(
      JSON.stringify([{ ...thrown }, thrown.message, thrown.stack, thrown.issues, String(thrown.cause)]),
    ).not.toContain('s3cr3t');
  });

  it('fails at creation on a bad scheme, tolerance or replay window', () => {
    expect(() => webhookEndpoint(deps(), { secret: webhookSecret, scheme: 'svix' as never })).toThrow(/scheme/);
    expect(() =>
      webhookEndpoint(deps(), { secret: webhookSecret, scheme: { type: 'hmac-header', header: 'bad header' } }),
    ).toThrow(/header/);
    expect(() => webhookEndpoint(deps(), { secret: webhookSecret, toleranceSeconds: 0 })).toThrow(/toleranceSeconds/);
    expect(() => webhookEndpoint(deps(), { secret: webhookSecret, replayTtlMs: 60_000 })).toThrow(
      /twice toleranceSeconds/,
    );
    expect(() => webhookEndpoint(deps(), { secret: webhookSecret, maxBodyBytes: 10 * 1024 * 1024 })).toThrow(
      /maxBodyBytes/,
    );
    // The engine's rules for the two options `verikit.receive` takes too (one schema, in core).
    expect(() => webhookEndpoint(deps(), { secret: webhookSecret, replayTtlMs: 900_000.5 })).toThrow(
      /replayTtlMs must be whole milliseconds/,
    );
    expect(() => webhookEndpoint(deps(), { secret: webhookSecret, processingTimeoutMs: 5 })).toThrow(
      /processingTimeoutMs/,
    );
  });
});
