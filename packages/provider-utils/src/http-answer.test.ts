import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { ProviderProtocolError, ProviderRejectedError, ProviderUnavailableError, type Logger } from '@verikit/provider';
import { describe, expect, it } from 'vitest';
import { answered, failedAnswer, readJsonAnswer, type JsonAnswerReading } from './http-answer.js';
import { createHttpClient } from './http-client.js';

function capture(): { logger: Logger; lines: Array<[string, string, Record<string, unknown> | undefined]> } {
  const lines: Array<[string, string, Record<string, unknown> | undefined]> = [];
  const log =
    (level: string) =>
    (event: string, fields?: Record<string, unknown>): void =>
      void lines.push([level, event, fields]);
  return { logger: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') }, lines };
}

/** A real answer from a local server that answers `status` and `body`, sent through the shared client ("acme"). */
async function answerOf(status: number, body: string) {
  const server = createServer((_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json' }).end(body);
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/send`;
    const { logger, lines } = capture();
    const client = createHttpClient({ name: 'acme', timeout: 30_000, connectionRetries: 0, connectionRetryDelayMs: 0 });
    const context = { signal: new AbortController().signal, idempotencyKey: 'k', logger };
    const answer = await client.send({ operation: 'sms.send', url, path: '/send', body: '{}' }, context);
    return { call: { logger, provider: 'acme', operation: 'sms.send', answer }, lines };
  } finally {
    server.close();
  }
}

describe('the log lines of an answer, the same for every HTTP provider', () => {
  it('a refusal is one warning with the call, the status, the error code and the time; the error is returned', async () => {
    // A real answer read through the shared client: its status and time are what is logged.
    const { call, lines } = await answerOf(400, '{"message":"+2348031234567 refused"}');
    const { answer } = call;
    const error = new ProviderRejectedError('acme sms.send: refused');
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
  });
});

describe('readJsonAnswer: an answer read the one way every HTTP provider reads it', () => {
  // A real server: each path answers one way; the key is in the refusal's message, as a careless vendor echoes it.
  const key = 'sk_live_Read-Json-Answer-42';
  const answers: Record<string, [number, string]> = {
    '/ok': [200, '{"sid":"SM1"}'],
    '/html': [200, '<html>ok</html>'],
    '/refused': [400, `{"message":"key ${key} refused for +2348031234567","code":21211}`],
    '/gone': [404, '{"error":"no record"}'],
    '/down': [503, 'down'],
  };
  async function read(path: string, reading: JsonAnswerReading<string> = {}) {
    const [status, body] = answers[path]!;
    const { call, lines } = await answerOf(status, body);
    try {
      return { result: readJsonAnswer(call, reading), lines };
    } catch (error) {
      return { result: error, lines };
    }
  }
  const message = (body: Record<string, unknown> | undefined) =>
    typeof body?.['message'] === 'string' ? body['message'] : undefined;

  it('a 2xx is its JSON object, logged as answered; a 2xx that is not JSON is a ProviderProtocolError on body', async () => {
    const ok = await read('/ok');
    expect(ok.result).toEqual({ sid: 'SM1' });
    expect(ok.lines.map(([level, event]) => `${level} ${event}`)).toContain('debug verikit.acme.response');
    const html = await read('/html');
    expect(ProviderProtocolError.isInstance(html.result)).toBe(true);
    expect((html.result as ProviderProtocolError).field).toBe('body');
  });

  it("a refusal is its status's typed error quoting the vendor's message redacted, logged once with the extra fields", async () => {
    const { result, lines } = await read('/refused', {
      message,
      secrets: [key],
      logged: (body) => ({ acmeCode: body?.['code'] }),
    });
    expect(ProviderRejectedError.isInstance(result)).toBe(true);
    const error = result as ProviderRejectedError;
    expect(error.message).toBe(
      'acme sms.send: the service refused the request (HTTP 400): key [redacted] refused for +••••••••••••',
    );
    const failed = lines.filter(([, event]) => event === 'verikit.acme.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]![2]).toMatchObject({ status: 400, acmeCode: 21211, error: error.code });
    expect(JSON.stringify(lines)).not.toContain(key);
    const down = await read('/down');
    expect(ProviderUnavailableError.isInstance(down.result)).toBe(true);
  });

  it("a refusal the provider reads itself: a result returned (logged as answered), or the provider's own error", async () => {
    const found = await read('/gone', {
      refused: ({ status }) => (status === 404 ? { result: 'no record' } : undefined),
    });
    expect(found.result).toBe('no record');
    expect(found.lines.filter(([, event]) => event === 'verikit.acme.failed')).toEqual([]);
    const own = new ProviderRejectedError('acme sms.send: its own words');
    const refused = await read('/refused', {
      refused: ({ label, message: quoted }) => (label === 'acme sms.send' && quoted !== undefined ? own : undefined),
      message,
    });
    expect(refused.result).toBe(own);
  });
});
