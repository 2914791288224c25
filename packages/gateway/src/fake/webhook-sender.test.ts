import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayFakeEvent } from './gateway-fake-options.js';
import { WebhookSender } from './webhook-sender.js';

const secret = `whsec_${Buffer.from('a-webhook-sender-test-secret-32b!').toString('base64')}`;

describe('WebhookSender', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  /** Listens on a free port until the test ends; returns the hook URL. */
  const listen = async (server: Server): Promise<string> => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  };
  /** The process warnings emitted until the test ends. */
  const collectWarnings = (): Error[] => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => void warnings.push(warning);
    process.on('warning', onWarning);
    cleanups.push(() => void process.off('warning', onWarning));
    return warnings;
  };

  it('leaves no abort listener behind on its stop signal after each retry wait (no MaxListenersExceededWarning)', async () => {
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(500).end());
    });
    const url = await listen(server);
    const warnings = collectWarnings();

    const events: GatewayFakeEvent[] = [];
    const retries = 25;
    const sender = new WebhookSender({
      url,
      secret,
      retryDelaysMs: Array.from({ length: retries }, () => 1),
      timeoutMs: 5000,
      emit: (event) => events.push(event),
    });
    cleanups.push(() => sender.close());
    const delivery = await sender.send({ event: 'USSD_VERIFICATION' });
    expect(delivery).toMatchObject({ attempts: retries + 1, delivered: false, lastStatus: 500 });
    // Warnings are emitted on a later tick: let them arrive.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning').map(String)).toEqual([]);
  });

  it('lengthens a wait to what Retry-After asks, up to maxRetryAfterMs, and ignores it when that is 0', async () => {
    let answered = 0;
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        answered += 1;
        if (answered % 2 === 1) response.writeHead(409, { 'retry-after': '3600' }).end();
        else response.writeHead(200).end();
      });
    });
    const url = await listen(server);

    for (const [maxRetryAfterMs, expectedWait] of [
      [15, 15],
      [0, 1],
    ] as const) {
      const events: GatewayFakeEvent[] = [];
      const sender = new WebhookSender({
        url,
        secret,
        retryDelaysMs: [1],
        maxRetryAfterMs,
        timeoutMs: 5000,
        emit: (event) => events.push(event),
      });
      cleanups.push(() => sender.close());
      expect(await sender.send({ event: 'USSD_VERIFICATION' })).toMatchObject({ attempts: 2, delivered: true });
      expect(
        events.map((event) => event.type === 'webhook' && [event.status, event.willRetry, event.retryInMs]),
      ).toEqual([
        [409, true, expectedWait],
        [200, false, undefined],
      ]);
    }
  });
  it('raises no MaxListenersExceededWarning with 30 webhooks in flight and waiting to retry at once', async () => {
    const held: Array<() => void> = [];
    const server = createServer((request, response) => {
      request.resume();
      // The first attempt at each webhook is held, then answered 503: all 30 wait for their retry together.
      request.on('end', () =>
        request.headers['webhook-id'] !== undefined && !retried.has(request.headers['webhook-id'] as string)
          ? held.push(() => {
              retried.add(request.headers['webhook-id'] as string);
              response.writeHead(503).end();
            })
          : response.writeHead(200).end(),
      );
    });
    const retried = new Set<string>();
    const url = await listen(server);
    const warnings = collectWarnings();

    const sender = new WebhookSender({
      url,
      secret,
      retryDelaysMs: [200],
      timeoutMs: 30_000,
      emit: () => undefined,
    });
    cleanups.push(() => sender.close());
    const concurrent = 30;
    const deliveries = Array.from({ length: concurrent }, (_, index) =>
      sender.send({ event: 'USSD_VERIFICATION', index }),
    );
    // Every attempt is in flight (the receiver holds its answer) before any is answered.
    while (held.length < concurrent) await new Promise((resolve) => setTimeout(resolve, 5));
    for (const answer of held) answer();
    for (const delivery of await Promise.all(deliveries))
      expect(delivery).toMatchObject({ delivered: true, attempts: 2 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning').map(String)).toEqual([]);
  });
});
