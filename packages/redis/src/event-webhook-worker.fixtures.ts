/**
 * An app instance that dies between a commit and the delivery of its events, run as its own Node process:
 * `node --import tsx --conditions=@verikit/source event-webhook-worker.fixtures.ts <namespace> <url>`.
 * It starts a phone flow and verifies it; the first time it would POST an event to the app's webhook it
 * kills itself (SIGKILL), holding that event's lease, with nothing sent.
 */
import { createVerikit } from '@verikit/core';
import { createTestProviderV1 } from '@verikit/testing';
import { createRedisStore } from './create-redis-store.js';
import { eventWebhookLeaseMs, eventWebhookSecret, eventWebhookTestSecret } from './event-webhook.fixtures.js';

const [namespace, url] = process.argv.slice(2) as [string, string];
const provider = createTestProviderV1();
const verikit = createVerikit({
  provider,
  secret: eventWebhookTestSecret,
  store: createRedisStore({ namespace }),
  guard: false,
  eventWebhook: {
    url,
    secret: eventWebhookSecret,
    pollMs: 0,
    timeoutMs: 500,
    leaseMs: eventWebhookLeaseMs,
    fetch: () => {
      process.kill(process.pid, 'SIGKILL');
      return new Promise<Response>(() => {});
    },
  },
});
const phone = '+2348035550123';
const flow = await verikit.start({ kind: 'phone', phoneNumber: phone });
await verikit.send(flow.id, { type: 'submit-code', code: provider.lastCode(phone)! });
