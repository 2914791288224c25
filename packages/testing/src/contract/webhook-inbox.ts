import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RawWebhookV1 } from '@verikit/provider';

/** A local endpoint that takes a fake's webhooks, as an app's webhook route would, and hands them out in order. */
export interface WebhookInbox {
  /** Where to send them: `http://127.0.0.1:<port>/webhooks`. */
  readonly url: string;
  /** The next webhook kept that arrives after this call (earlier ones are not kept). */
  next(): Promise<RawWebhookV1>;
  /** Stops the server. */
  close(): Promise<void>;
}

/**
 * Starts a {@link WebhookInbox} on 127.0.0.1 for a contract subject's `deliveryReports`. Every webhook is answered 200;
 * one is handed to the oldest `next()` waiting for it, unless `keep` refuses it (a status on the way, not a receipt).
 *
 * @example
 * const inbox = await startWebhookInbox();
 * const fake = await startTermiiFake({ deliveryReports: { url: inbox.url, secretKey: 'key' } });
 */
export async function startWebhookInbox(keep: (webhook: RawWebhookV1) => boolean = () => true): Promise<WebhookInbox> {
  const waiting: Array<(webhook: RawWebhookV1) => void> = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
      const webhook = { body: Buffer.concat(chunks).toString('utf8'), headers };
      if (keep(webhook)) waiting.shift()?.(webhook);
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
