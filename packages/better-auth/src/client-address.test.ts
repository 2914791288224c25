import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler as betterAuthNodeHandler } from 'better-auth/node';
import { afterEach, describe, expect, it } from 'vitest';
import type { BetterAuthOptions } from 'better-auth';
import type { Logger } from '@verikit/core';
import { freshPhoneNumber } from '@verikit/testing';
import { betterAuthWithVerikit } from './better-auth.fixtures.js';
import { toNodeHandler } from './node.js';
import type { VerikitAuthOptions } from './verikit-auth-options.js';

// The send guard's per-client limit through the plugin's flow routes, over real HTTP to a real node server, as an
// attacker tries it: a fresh X-Forwarded-For on every start must not make a fresh client.
const guard = { perClient: { points: 2 }, perPrefix: false, global: false } as const;

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server === undefined ? resolve(undefined) : server.close(resolve)));
  server = undefined;
});

/** Better Auth with the plugin, served on 127.0.0.1 by `serve` (the plugin's node handler unless told). */
async function serveAuth(
  options: Partial<VerikitAuthOptions> = {},
  advanced?: BetterAuthOptions['advanced'],
  serve: typeof toNodeHandler = toNodeHandler,
) {
  const env = await betterAuthWithVerikit(options, { guard, advanced });
  server = createServer(serve(env.auth));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { ...env, port: (server.address() as AddressInfo).port };
}

/** Starts a phone flow from the local address `from`, with `headers`; the answer's status. */
function start(port: number, headers: Record<string, string> = {}, from = '127.0.0.1'): Promise<number> {
  const body = JSON.stringify({ kind: 'phone', phoneNumber: freshPhoneNumber() });
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: '127.0.0.1',
        port,
        localAddress: from,
        method: 'POST',
        path: '/api/auth/verikit/flows',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode!));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** Four starts, each claiming a different client in `header`; their statuses, in order. */
async function spoofedStarts(port: number, header = 'x-forwarded-for', from?: string): Promise<number[]> {
  const statuses: number[] = [];
  for (const last of [11, 12, 13, 14]) statuses.push(await start(port, { [header]: `203.0.113.${last}` }, from));
  return statuses;
}

function captureWarnings(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const ignore = () => undefined;
  return {
    logger: { debug: ignore, info: ignore, warn: (message) => warnings.push(message), error: ignore },
    warnings,
  };
}

describe("the plugin's flow routes count sends per client", () => {
  it('by the connection address: a fresh X-Forwarded-For on every start is still one client', async () => {
    const { port } = await serveAuth();
    expect(await spoofedStarts(port)).toEqual([201, 201, 429, 429]);
  });

  it('another connection address is another client', async () => {
    const { port } = await serveAuth();
    expect(await spoofedStarts(port, 'x-forwarded-for', '127.0.0.2')).toEqual([201, 201, 429, 429]);
    expect(await start(port, {}, '127.0.0.3')).toBe(201);
  });

  it("with trustProxy, by the proxy's last X-Forwarded-For entry", async () => {
    const { port } = await serveAuth({ flowHandler: { trustProxy: true } });
    expect(await spoofedStarts(port)).toEqual([201, 201, 201, 201]);
    const sameClient = { 'x-forwarded-for': '198.51.100.7, 203.0.113.20' };
    expect([await start(port, sameClient), await start(port, sameClient), await start(port, sameClient)]).toEqual([
      201, 201, 429,
    ]);
  });

  it("by the header Better Auth's advanced.ipAddress.ipAddressHeaders names, and no other", async () => {
    const { port } = await serveAuth({}, { ipAddress: { ipAddressHeaders: ['x-real-ip'] } });
    expect(await spoofedStarts(port, 'x-real-ip')).toEqual([201, 201, 201, 201]);
    const sameClient = { 'x-real-ip': '198.51.100.7' };
    expect([await start(port, sameClient), await start(port, sameClient), await start(port, sameClient)]).toEqual([
      201, 201, 429,
    ]);
  });

  it('not at all with advanced.ipAddress.disableIpTracking, which the warning says', async () => {
    const { logger, warnings } = captureWarnings();
    const { port } = await serveAuth({ flowHandler: { logger } }, { ipAddress: { disableIpTracking: true } });
    expect(await spoofedStarts(port)).toEqual([201, 201, 201, 201]);
    expect(warnings).toEqual(['verikit.guard.no-client-address']);
  });

  it("served by Better Auth's own node handler, never by a header the client wrote", async () => {
    const { logger, warnings } = captureWarnings();
    const { port } = await serveAuth({ flowHandler: { logger } }, undefined, betterAuthNodeHandler);
    const sameSpoof = { 'x-forwarded-for': '203.0.113.9' };
    expect([await start(port, sameSpoof), await start(port, sameSpoof), await start(port, sameSpoof)]).toEqual([
      201, 201, 201,
    ]);
    expect(warnings).toEqual(['verikit.guard.no-client-address']);
  });
});
