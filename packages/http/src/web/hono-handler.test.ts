import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createTestProviderV1 } from '@verikit/testing';
import { createVerikit } from '@verikit/core';
import { createFlowHandler } from '../create-flow-handler.js';
import { toHonoHandler } from './hono-handler.js';
import { httpTestSecret } from '../http.fixtures.js';

describe('toHonoHandler', () => {
  it('passes the address getConnInfo names: each client has its own per-client count', async () => {
    const verikit = createVerikit({
      provider: createTestProviderV1(),
      secret: httpTestSecret,
      guard: { perClient: { points: 2 }, perPrefix: false },
    });
    const handler = createFlowHandler({ verikit, basePath: '/api/verify' });
    const app = new Hono();
    app.all(
      '/api/verify/*',
      toHonoHandler(handler, { getConnInfo: (c) => ({ remote: { address: c.req.header('x-test-peer') } }) }),
    );
    const start = async (peer: string, index: number) =>
      (
        await app.request('/api/verify/flows', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-test-peer': peer },
          body: JSON.stringify({ kind: 'phone', phoneNumber: `+23480123402${index}0` }),
        })
      ).status;
    expect([await start('10.0.0.1', 0), await start('10.0.0.1', 1), await start('10.0.0.1', 2)]).toEqual([
      201, 201, 429,
    ]);
    // Another client is not blocked by the first one's count.
    expect(await start('10.0.0.2', 3)).toBe(201);
  });
});
