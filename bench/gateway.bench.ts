/**
 * `pnpm bench gateway`: a phone send + check round trip through the gateway provider (ky) against the
 * sandbox, beside the same two requests made with bare `fetch`, measured side by side in one run.
 *
 * The sandbox runs in a child process (its own core); this process runs the clients. Each round trip is
 * `POST /gateway/api/v1/verify/phoneNumber` (read `data.requestId`), then `POST /gateway/api/v1/verify/phoneCheck`
 * with a code that can never match (4 digits; the sandbox makes 6): it answers success:false, which
 * the provider reads as `{ valid: false }`.
 * The bare client sends the same headers and bodies, reads each body once and parses it with JSON.parse;
 * it validates nothing. Each round trip gets a fresh AbortSignal, in both arms (the engine gives every
 * provider call its own).
 *
 * At concurrency 1 and 64, rounds alternate gateway / bare; printed: round trips per second (medians),
 * the cost ratio bare rate / gateway rate (1.0 = free; target <= 1.3), and this process's CPU time per
 * round trip, which shows the client's own cost even when the server is the bottleneck.
 */
import { fileURLToPath } from 'node:url';
import { silentLogger, type ProviderV1 } from '@verikit/provider';
import { spawnServer } from './child.js';
import { sized } from './mode.js';
import { compareWithBare, type RoundTrip } from './round-trips.js';
import { createGatewayProvider } from '@verikit/gateway';
import { startGatewayFake } from '@verikit/gateway/fake';

const serverFlag = 'VERIKIT_GATEWAY_BENCH_SERVER';
const rounds = sized(5, 1);
const roundMs = sized(1500, 300);
const phonePath = '/gateway/api/v1/verify/phoneNumber';
const checkPath = '/gateway/api/v1/verify/phoneCheck';

/** The child: the gateway fake on free ports; prints its two base addresses and apiKey. */
async function serve(): Promise<void> {
  const sandbox = await startGatewayFake({ outboxLimit: 100 });
  process.stdout.write(
    `${JSON.stringify({ url: sandbox.url, ussdUrl: sandbox.ussdBaseUrl, apiKey: sandbox.apiKey })}\n`,
  );
}

async function startSandboxProcess(): Promise<{ url: string; ussdUrl: string; apiKey: string; stop: () => void }> {
  const { line, stop } = await spawnServer('sandbox', fileURLToPath(import.meta.url), { [serverFlag]: '1' });
  return { ...(JSON.parse(line) as { url: string; ussdUrl: string; apiKey: string }), stop };
}

/** Phone numbers that are valid, distinct, and none of the sandbox's magic ones. */
function phoneNumber(index: number): string {
  return `+23480500${String(index % 100_000).padStart(5, '0')}`;
}

function gatewayRoundTrip(provider: ProviderV1): RoundTrip {
  const phone = provider.phone!;
  return async (index) => {
    const context = { signal: new AbortController().signal, idempotencyKey: `bench:${index}`, logger: silentLogger };
    const { requestId } = await phone.send({ phoneNumber: phoneNumber(index), channel: 'sms' }, context);
    const { valid } = await phone.check({ requestId, code: '0000' }, context);
    if (valid) throw new Error('a wrong code was accepted');
  };
}

function bareRoundTrip(url: string, apiKey: string): RoundTrip {
  const headers = { 'content-type': 'application/json', accept: 'application/json', apiKey };
  const post = async (path: string, body: unknown, signal: AbortSignal) => {
    const response = await fetch(url + path, { method: 'POST', headers, body: JSON.stringify(body), signal });
    return JSON.parse(await response.text()) as { success: boolean; data: { requestId?: string } | null };
  };
  return async (index) => {
    const signal = new AbortController().signal;
    const sent = await post(phonePath, { from: 'Bench', phoneNumber: phoneNumber(index) }, signal);
    const requestId = sent.data?.requestId;
    if (!sent.success || requestId === undefined) throw new Error('the sandbox did not answer with a requestId');
    const checked = await post(checkPath, { code: '0000', requestId }, signal);
    if (checked.success) throw new Error('a wrong code was accepted');
  };
}

/** Runs the gateway bench: see the file comment. */
export async function run(): Promise<void> {
  const server = await startSandboxProcess();
  try {
    const provider = createGatewayProvider({
      apiKey: server.apiKey,
      baseUrl: server.url,
      ussdBaseUrl: server.ussdUrl,
      defaultSender: 'Bench',
    });
    const gateway = gatewayRoundTrip(provider);
    const bare = bareRoundTrip(server.url, server.apiKey);
    const offset = { next: 0 };
    console.log(
      `phone send + check round trips against the gateway fake in a child process, ${rounds} alternating rounds of ${roundMs} ms`,
    );
    for (const concurrency of [1, 64])
      await compareWithBare('gateway', gateway, bare, { concurrency, rounds, roundMs, offset });
  } finally {
    server.stop();
  }
}

if (process.env[serverFlag] === '1') await serve();
