import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FlowView } from '@verikit/core';
import { createFlowHandler } from './create-flow-handler.js';
import {
  describeAdapters,
  frozenClock,
  otherPhoneNumber,
  phoneNumber,
  postJson,
  rawExchange,
  setupHttp,
  type HttpSetup,
} from './http.fixtures.js';

// Any request a client can send is answered 2xx or 4xx, as JSON (or with no body where HTTP has
// none: 204, HEAD; or an SSE stream on the stream route), never 5xx; and no pre-existing flow changes.

let setup: HttpSetup;
let handler: (request: Request) => Promise<Response>;
let flowIds: string[];

beforeAll(async () => {
  // A clock that stands still: the views compared before and after carry serverTime.
  setup = await setupHttp(
    {
      cors: { origin: ['https://app.example.com'] },
      webhooks: { secret: `whsec_${Buffer.from('hostile-requests-key-32-bytes-long').toString('base64')}` },
    },
    { clock: frozenClock() },
  );
  handler = createFlowHandler({ verikit: setup.verikit, cors: { origin: '*' } });
  flowIds = [];
  for (const [kind, number] of [
    ['phone', phoneNumber],
    ['ussd', otherPhoneNumber],
  ] as const) {
    const response = await postJson(`${setup.url}/flows`, { kind, phoneNumber: number });
    expect(response.status).toBe(201);
    flowIds.push(((await response.json()) as FlowView).id);
  }
});
afterAll(() => setup.close());

/** Every stored record of the flows that existed before the run. */
async function existingFlows(): Promise<string> {
  return JSON.stringify(await Promise.all(flowIds.map((id) => setup.verikit.get(id))));
}

const eventWords = /cancel|submit-code|resend|restart/;
const token = fc.stringMatching(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,12}$/);
const knownMethods = fc.constantFrom(
  'GET',
  'POST',
  'PUT',
  'DELETE',
  'PATCH',
  'OPTIONS',
  'HEAD',
  'TRACE',
  'PROPFIND',
  'MKCOL',
  'SEARCH',
  'QUERY',
  'get',
  'post',
  'patch',
  'options',
);
const segment = fc.oneof(
  fc.constantFrom(
    'flows',
    'events',
    'stream',
    'proof',
    'webhooks',
    '',
    '.',
    '..',
    '%2e%2e',
    '%zz',
    '%',
    '%E0%A4%A',
    '%2F',
    '%00',
    '%25',
    'é',
    '日本',
    '😀',
    '\\',
    'AAAAAAAAAAAAAAAAAAAAAA',
  ),
  fc.string({ maxLength: 30 }),
  fc.string({ minLength: 2000, maxLength: 9000, unit: fc.constantFrom('a', 'b', '%41', '/') }),
);
const path = fc.oneof(
  fc.array(segment, { maxLength: 6 }).map((segments) => `/${segments.join('/')}`),
  fc
    .tuple(fc.constantFrom(0, 1), fc.constantFrom('', '/events', '/stream', '/proof', '/', '//events', '/events/x'))
    .map(([index, tail]) => ({ index, tail })),
  fc.constantFrom('/flows', '//flows', '/flows/', '/flows?x=1#y', '/webhooks', '/./flows/../flows', '/FLOWS'),
);
const contentType = fc.constantFrom(
  undefined,
  'application/json',
  'application/json; charset=latin1',
  'text/plain',
  'APPLICATION/JSON; CHARSET="UTF-8"',
  'multipart/form-data; boundary=x',
  ';;;',
  'application/json;charset',
);
const body = fc.oneof(
  fc.constant(undefined),
  fc.json({ maxDepth: 3 }).filter((text) => !eventWords.test(text)),
  fc.string({ maxLength: 200 }).filter((text) => !eventWords.test(text)),
  fc.uint8Array({ maxLength: 200 }),
  fc.constantFrom('{"kind":"phone"', '\uFEFF{}', 'null', '[]', '{"__proto__":{"x":1}}', '\u0000', 'x'.repeat(20_000)),
);
const headers = fc.record(
  {
    'content-type': contentType,
    'content-encoding': fc.constantFrom('gzip', 'br', 'identity', 'x'),
    'last-event-id': fc.constantFrom('0', '999999999999999999999', '-1', 'abc', ''),
    origin: fc.constantFrom('https://app.example.com', 'null', 'https://evil.example', ''),
    'access-control-request-method': fc.constantFrom('POST', 'DELETE'),
    'x-random': fc.string({ maxLength: 40 }).map((value) => value.replace(/[^\x20-\x7e]/g, '')),
  },
  { requiredKeys: [] },
);
const hostileRequest = fc.record({ method: fc.oneof(knownMethods, token), path, headers, body });
type HostileRequest = typeof hostileRequest extends fc.Arbitrary<infer T> ? T : never;

function pathOf(generated: HostileRequest['path']): string {
  return typeof generated === 'string' ? generated : `/flows/${flowIds[generated.index]}${generated.tail}`;
}

function headersOf(request: HostileRequest): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) if (value !== undefined) result[name] = value;
  return result;
}

/** Checks one answer: status 2xx or 4xx; a JSON body unless HTTP has none or it is the SSE stream. */
function checkAnswer(label: string, method: string, status: number, type: string | null, text: string): void {
  expect(status, label).toBeGreaterThanOrEqual(200);
  expect(status, label).toBeLessThan(500);
  expect(status >= 300 && status < 400, label).toBe(false);
  if (status === 204 || method.toUpperCase() === 'HEAD') return;
  if (type?.startsWith('text/event-stream')) return;
  expect(type, label).toBe('application/json; charset=utf-8');
  expect(() => JSON.parse(text), label).not.toThrow();
}

describeAdapters('hostile requests: any method, path, header and body', () => {
  it('called directly: only 2xx/4xx JSON answers, and no existing flow changes', async () => {
    const before = await existingFlows();
    await fc.assert(
      fc.asyncProperty(hostileRequest, async (generated) => {
        let request: Request;
        try {
          const hasBody = generated.body !== undefined && !['GET', 'HEAD'].includes(generated.method.toUpperCase());
          request = new Request(`http://localhost${pathOf(generated.path)}`, {
            method: generated.method,
            headers: headersOf(generated),
            ...(hasBody ? { body: generated.body } : {}),
          });
        } catch {
          return; // Fetch itself refuses it (CONNECT, TRACE, a bad header): no server can receive it as a Request.
        }
        const response = await handler(request);
        const stream = response.headers.get('content-type')?.startsWith('text/event-stream') === true;
        if (stream) await response.body?.cancel();
        const text = stream ? '' : await response.text();
        checkAnswer(
          `${generated.method} ${pathOf(generated.path)}`,
          generated.method,
          response.status,
          response.headers.get('content-type'),
          text,
        );
      }),
      { numRuns: 2000 },
    );
    expect(await existingFlows()).toBe(before);
  });

  it('over node:http through toNodeHandler (and answerClientErrors): only 2xx/4xx JSON answers, and no existing flow changes', async () => {
    const before = await existingFlows();
    const port = Number(new URL(setup.url).port);
    // Raw bytes, so that nothing a client library would refuse is left out: any method token, a raw
    // target (spaces, unicode, control characters), a missing or malformed Host.
    const method = fc.oneof(knownMethods, token, fc.constantFrom('CONNECT', 'get', 'G@T', ''));
    const host = fc.constantFrom(
      undefined,
      `127.0.0.1:${port}`,
      'localhost',
      'evil.com/../x@y',
      'a b',
      '[::1',
      'é.example',
      'x'.repeat(300),
      '127.0.0.1:99999',
      '',
    );
    await fc.assert(
      fc.asyncProperty(hostileRequest, method, host, async (generated, verb, hostHeader) => {
        const target = pathOf(generated.path);
        const payload = generated.body === undefined ? Buffer.alloc(0) : Buffer.from(generated.body);
        const lines = [`${verb} ${target} HTTP/1.1`, ...(hostHeader === undefined ? [] : [`Host: ${hostHeader}`])];
        for (const [name, value] of Object.entries(headersOf(generated))) lines.push(`${name}: ${value}`);
        lines.push('Connection: close', `Content-Length: ${payload.length}`);
        const answer = await rawExchange(port, Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), payload]));
        checkAnswer(
          `${verb} ${target.slice(0, 200)} (Host ${hostHeader}) ${answer.status}`,
          verb,
          answer.status,
          answer.headers['content-type'] ?? null,
          answer.body,
        );
      }),
      { numRuns: 1000 },
    );
    expect(await existingFlows()).toBe(before);
  });
});
