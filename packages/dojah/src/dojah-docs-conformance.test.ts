import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger, type ProviderCallContextV1 } from '@verikit/provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDojahFake, type DojahFake } from './fake/index.js';
import { createDojahProvider } from './index.js';

// Dojah's documented examples (conformance/docs-examples.json, with the page each comes from and the date it was
// read): the provider must send the documented request and read the documented answer as documented, and the fake
// must answer the documented request in the documented shape. conformance/README.md says what was checked.

interface DocumentedExample {
  readonly name: string;
  readonly source: string;
  readonly request: {
    readonly method: 'GET' | 'POST';
    readonly path: string;
    readonly query?: Record<string, string>;
    readonly body?: Record<string, string>;
  };
  readonly response: { readonly status: number; readonly body: unknown };
  readonly input: { readonly idType: 'bvn' | 'nin'; readonly number: string; readonly claims?: object };
  readonly verikit: unknown;
}

const kept = JSON.parse(readFileSync(new URL('../conformance/docs-examples.json', import.meta.url), 'utf8')) as {
  readonly readAt: string;
  readonly examples: readonly DocumentedExample[];
};

/** Every leaf of a JSON value by dotted path, with its type. */
function shape(value: unknown, path = '', into = new Map<string, string>()): Map<string, string> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0)
    for (const [key, child] of Object.entries(value)) shape(child, path === '' ? key : `${path}.${key}`, into);
  else into.set(path, value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);
  return into;
}

/** A server that answers every request with one documented answer, and keeps what it was asked. */
async function startReplay() {
  let answer: DocumentedExample['response'] = { status: 500, body: {} };
  const seen: Array<{ method: string; path: string; query: Record<string, string>; body: string }> = [];
  const read = (request: IncomingMessage) =>
    new Promise<string>((resolve) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });
  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    seen.push({
      method: request.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      body: await read(request),
    });
    response.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    answer(next: DocumentedExample['response']) {
      answer = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const context = (): ProviderCallContextV1 => ({
  signal: AbortSignal.timeout(30_000),
  idempotencyKey: 'docs:effect:1',
  logger: silentLogger,
});

describe("Dojah: the provider and the fake against Dojah's documented examples", () => {
  let replay: Awaited<ReturnType<typeof startReplay>>;
  let fake: DojahFake;
  beforeAll(async () => {
    [replay, fake] = await Promise.all([startReplay(), startDojahFake()]);
  });
  afterAll(() => Promise.all([replay.close(), fake.close()]));

  it('keeps each example with the page it comes from and the date it was read', () => {
    expect(kept.readAt).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(kept.examples.length).toBe(10);
    for (const example of kept.examples)
      expect(example.source).toMatch(/^https:\/\/(docs|api-docs)\.dojah\.io\/|github\.com\/dojah-inc\//);
  });

  it.each(kept.examples.map((example) => [example.name, example] as const))(
    '%s: the provider sends the documented request and reads the documented answer as documented',
    async (_name, example) => {
      replay.answer(example.response);
      const from = replay.seen.length;
      const steps = createDojahProvider({ appId: 'docs-app', secretKey: 'test_sk_docs', baseUrl: replay.url })
        .identitySteps!;
      const result =
        example.request.method === 'GET'
          ? await steps.match!({ ...example.input, claims: example.input.claims ?? {} }, context())
          : await steps.face!(
              { ...example.input, image: Buffer.from(example.request.body!.selfie_image!, 'base64') },
              context(),
            );
      expect(result).toEqual(example.verikit);
      const sent = replay.seen.slice(from);
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatchObject({ method: example.request.method, path: example.request.path });
      if (example.request.query !== undefined) expect(sent[0]!.query).toEqual(example.request.query);
      else expect(JSON.parse(sent[0]!.body)).toEqual(example.request.body);
    },
  );

  it.each(kept.examples.map((example) => [example.name, example] as const))(
    '%s: the fake answers the documented request with the documented status and fields',
    async (_name, example) => {
      const url = new URL(example.request.path, fake.baseUrl);
      for (const [key, value] of Object.entries(example.request.query ?? {})) url.searchParams.set(key, value);
      const answer = await fetch(url, {
        method: example.request.method,
        headers: { appid: fake.appId, authorization: fake.secretKey, 'content-type': 'application/json' },
        ...(example.request.body === undefined ? {} : { body: JSON.stringify(example.request.body) }),
      });
      expect(answer.status).toBe(example.response.status);
      const theirs = shape(example.response.body);
      const ours = shape(await answer.json());
      // Every field the fake answers is documented, with the documented type.
      for (const [path, type] of ours) expect(`${path}: ${theirs.get(path)}`).toBe(`${path}: ${type}`);
      // And it answers every documented field, but for the lookups' whole records (dozens of fields no step reads).
      if (!['lookup-bvn', 'lookup-nin'].includes(example.name))
        expect([...ours.keys()].sort()).toEqual([...theirs.keys()].sort());
    },
  );
});
