import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a {@link WebhookReceiver} got. */
export interface ReceivedWebhook {
  /** The path asked for (`/events`, or where a followed redirect led). */
  readonly path: string;
  /** The request's headers, names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body as sent. */
  readonly body: string;
}

/** An answer of a {@link WebhookReceiver}: a status (`302` redirects to `/redirected`), or `hang` (never answers). */
export type WebhookAnswer = number | 'hang';

/** A real HTTP server on 127.0.0.1 that records the webhooks POSTed to it and answers as told. */
export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/events`. */
  readonly url: string;
  /** Every request received, in order. */
  readonly received: readonly ReceivedWebhook[];
  /** The answers to the next requests, in order; once used up, every request gets 204. */
  answer(...answers: WebhookAnswer[]): void;
  /** Resolves once `count` requests have been received in all. */
  waitFor(count: number): Promise<void>;
  /** Stops the server, dropping requests left hanging. */
  close(): Promise<void>;
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Starts a {@link WebhookReceiver}, for tests of the webhooks an engine sends (`eventWebhook`).
 *
 * @example
 * const receiver = await startWebhookReceiver();
 * receiver.answer(500); // the first delivery fails, the next ones get 204
 * const verikit = createVerikit({ provider, secret, eventWebhook: { url: receiver.url, secret: whsec } });
 */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const answers: WebhookAnswer[] = [];
  const waiting: Array<{ count: number; resolve: () => void }> = [];
  const server = createServer((request, response) => {
    void bodyOf(request).then((body) => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers[name] = value;
      received.push({ path: request.url ?? '', headers, body });
      for (const waiter of waiting.filter((entry) => received.length >= entry.count)) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.resolve();
      }
      const answer = answers.shift() ?? 204;
      if (answer === 'hang') return;
      response.writeHead(answer, answer >= 300 && answer < 400 ? { location: '/redirected' } : {}).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/events`,
    received,
    answer: (...next) => {
      answers.push(...next);
    },
    waitFor: (count) =>
      received.length >= count ? Promise.resolve() : new Promise((resolve) => waiting.push({ count, resolve })),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
