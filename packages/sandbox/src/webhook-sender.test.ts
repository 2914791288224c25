import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxEvent } from './sandbox-options.js';
import { WebhookSender } from './webhook-sender.js';

const secret = `whsec_${Buffer.from('a-webhook-sender-test-secret-32b!').toString('base64')}`;

describe('WebhookSender', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('leaves no abort listener behind on its stop signal after each retry wait (no MaxListenersExceededWarning)', async () => {
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(500).end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => void warnings.push(warning);
    process.on('warning', onWarning);
    cleanups.push(() => void process.off('warning', onWarning));

    const events: SandboxEvent[] = [];
    const retries = 25;
    const sender = new WebhookSender({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
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
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

    for (const [maxRetryAfterMs, expectedWait] of [
      [15, 15],
      [0, 1],
    ] as const) {
      const events: SandboxEvent[] = [];
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
});
