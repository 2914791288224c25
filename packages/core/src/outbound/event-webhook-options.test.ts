import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '@verikit/provider';
import { createTestProviderV1 } from '@verikit/testing';
import { createVerikit } from '../engine/create-verikit.js';
import { webhookSecretKey, type EventWebhookOptions } from './event-webhook-options.js';

const secret = `whsec_${Buffer.from('event-webhook-test-key-0123456789').toString('base64')}`;

describe('eventWebhook options', () => {
  it('refuses options that would leak or misroute events, naming the field and never the secret', () => {
    const provider = createTestProviderV1();
    const attempt = (eventWebhook: Partial<EventWebhookOptions>) => () =>
      createVerikit({
        provider,
        secret: 'engine-test-secret-0123456789-abcdefghij',
        eventWebhook: { url: 'https://app.example/events', secret, ...eventWebhook },
      });
    const cases: Array<[Partial<EventWebhookOptions>, string]> = [
      [{ url: 'http://app.example/events' }, 'eventWebhook.url'],
      [{ url: 'https://user:pass@app.example/events' }, 'eventWebhook.url'],
      [{ url: 'events' }, 'eventWebhook.url'],
      [{ secret: 'not-a-whsec-secret-but-long-enough' }, 'eventWebhook.secret'],
      [{ timeoutMs: 10_000, leaseMs: 5000 }, 'eventWebhook.leaseMs'],
      [{ types: ['verified', 'code-sent' as never] }, 'eventWebhook.types.1'],
    ];
    for (const [options, field] of cases) {
      const error = (() => {
        try {
          attempt(options)();
        } catch (caught) {
          return caught;
        }
        return undefined;
      })();
      expect(InvalidInputError.isInstance(error), field).toBe(true);
      expect((error as InvalidInputError).issues.map((issue) => issue.field)).toContain(field);
      expect(JSON.stringify(error)).not.toContain('not-a-whsec-secret');
    }
    expect(attempt({ url: 'http://localhost:3000/events' })).not.toThrow();
  });

  it('refuses secrets that are not whsec_ and 24 to 64 bytes of base64', () => {
    for (const bad of [
      '',
      'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'whsec_short',
      'whsec_not base64!!',
      `whsec_${'A'.repeat(88)}`,
    ])
      expect(webhookSecretKey(bad)).toBeUndefined();
    expect(webhookSecretKey(secret)).toBeInstanceOf(Buffer);
  });
});
