import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RawWebhookV1 } from '@verikit/provider';
import { runProviderContract, type ContractFailure } from '@verikit/testing/contract';
import { createTermiiProvider } from './create-termii-provider.js';
import { startTermiiFake, termiiMagicNumbers, type TermiiMagicBehaviour } from './fake/index.js';

const behaviour: Record<ContractFailure, TermiiMagicBehaviour> = {
  rejected: 'rejected',
  unavailable: 'server-error',
  authentication: 'unauthorized',
  protocol: 'not-json',
};
const magic = (wanted: TermiiMagicBehaviour) =>
  Object.entries(termiiMagicNumbers).find(([, value]) => value === wanted)![0];

/** A local server that takes the fake's delivery reports, as an app's webhook route would, and hands them out in order. */
async function reportInbox(): Promise<{ url: string; next(): Promise<RawWebhookV1>; close(): Promise<void> }> {
  const waiting: Array<(webhook: RawWebhookV1) => void> = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
      waiting.shift()?.({ body: Buffer.concat(chunks).toString('utf8'), headers });
      response.end();
    });
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    next: () => new Promise((resolve) => waiting.push(resolve)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

runProviderContract('termii over its fake', async () => {
  const inbox = await reportInbox();
  const fake = await startTermiiFake({
    deliveryReports: { url: inbox.url, secretKey: 'contract-secret-key', delayMs: 0 },
  });
  const provider = createTermiiProvider({
    apiKey: fake.apiKey,
    baseUrl: fake.baseUrl,
    senderId: 'Verikit',
    timeout: 5000,
    messageTemplates: { fr: { sms: 'Votre code Verikit : < 1234 >' } },
  });
  return {
    provider,
    lastCode: (phoneNumber) => fake.lastCode(phoneNumber),
    lastMessage: (phoneNumber) => fake.lastMessage(phoneNumber),
    fail: (_operation, failure) => ({ phoneNumber: magic(behaviour[failure]) }),
    localized: { locale: 'fr', channel: 'sms', text: (code) => `Votre code Verikit : ${code}` },
    // Termii reports voice codes (Voice Token names the message_id its reports carry); Send Token names none.
    deliveryReports: { channel: 'voice', next: () => inbox.next() },
    cleanup: async () => {
      await fake.close();
      await inbox.close();
    },
  };
});
