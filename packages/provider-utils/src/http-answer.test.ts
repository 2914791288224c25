import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { ProviderRejectedError, type Logger } from '@verikit/provider';
import { describe, expect, it } from 'vitest';
import { answered, failedAnswer } from './http-answer.js';
import { createHttpClient } from './http-client.js';

function capture(): { logger: Logger; lines: Array<[string, string, Record<string, unknown> | undefined]> } {
  const lines: Array<[string, string, Record<string, unknown> | undefined]> = [];
  const log =
    (level: string) =>
    (event: string, fields?: Record<string, unknown>): void =>
      void lines.push([level, event, fields]);
  return { logger: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') }, lines };
}

describe('the log lines of an answer, the same for every HTTP provider', () => {
  it('a refusal is one warning with the call, the status, the error code and the time; the error is returned', async () => {
    // A real answer from a local server, read through the shared client: its status and time are what is logged.
    const server = createServer((_request, response) => {
      response.writeHead(400, { 'content-type': 'application/json' }).end('{"message":"+2348031234567 refused"}');
    }).listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/send`;
      const { logger, lines } = capture();
      const client = createHttpClient({
        name: 'acme',
        timeout: 30_000,
        connectionRetries: 0,
        connectionRetryDelayMs: 0,
      });
      const context = { signal: new AbortController().signal, idempotencyKey: 'k', logger };
      const answer = await client.send({ operation: 'sms.send', url, path: '/send', body: '{}' }, context);
      const error = new ProviderRejectedError('acme sms.send: refused');
      const call = { logger, provider: 'acme', operation: 'sms.send', answer };
      expect(failedAnswer(call, error, { acmeCode: 21211 })).toBe(error);
      answered(call, { recognised: true });
      const logged = lines.filter(([, event]) => event.startsWith('verikit.acme.f') || event.endsWith('.response'));
      expect(logged).toEqual([
        [
          'warn',
          'verikit.acme.failed',
          { operation: 'sms.send', status: 400, acmeCode: 21211, error: error.code, durationMs: answer.durationMs },
        ],
        [
          'debug',
          'verikit.acme.response',
          { operation: 'sms.send', status: 400, recognised: true, durationMs: answer.durationMs },
        ],
      ]);
      // Never a body: the number the provider echoed is in no line.
      expect(JSON.stringify(lines)).not.toContain('2348031234567');
    } finally {
      server.close();
    }
  });
});
