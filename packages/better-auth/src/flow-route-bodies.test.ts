import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler as betterAuthNodeHandler } from 'better-auth/node';
import { afterEach, describe, expect, it } from 'vitest';
import { betterAuthWithVerikit } from './better-auth.fixtures.js';
import { toNodeHandler } from './node.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server === undefined ? resolve(undefined) : server.close(resolve)));
  server = undefined;
});

/** Posts `body` as `type` to the plugin's flow route; the status and the JSON answer. */
function post(port: number, type: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/auth/verikit/flows',
        headers: { 'content-type': type, 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        response.on('end', () => resolve({ status: response.statusCode!, body: text }));
      },
    );
    outgoing.setTimeout(20_000, () => outgoing.destroy(new Error('no answer')));
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

describe.each([
  { name: '@verikit/better-auth/node', serve: toNodeHandler },
  { name: 'better-auth/node', serve: betterAuthNodeHandler },
])("the plugin's flow route under $name answers a body it cannot take", ({ serve }) => {
  it('415 for a body that is not JSON, 413 for one too large, with the handler’s error body', async () => {
    const env = await betterAuthWithVerikit();
    server = createServer(serve(env.auth));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const text = await post(port, 'text/plain', 'kind=phone');
    expect([text.status, JSON.parse(text.body)]).toEqual([
      415,
      { error: expect.objectContaining({ code: 'unsupported_media_type' }) },
    ]);
    const large = await post(port, 'application/json', JSON.stringify({ kind: 'phone', pad: 'x'.repeat(64_000) }));
    expect([large.status, JSON.parse(large.body)]).toEqual([
      413,
      { error: expect.objectContaining({ code: 'payload_too_large' }) },
    ]);
    const json = await post(port, 'application/json', JSON.stringify({ kind: 'phone', phoneNumber: '+2348012345678' }));
    expect(json.status).toBe(201);
  });
});
