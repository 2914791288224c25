/**
 * `pnpm path-files`: which of the project's source files run on three paths, measured by running each path with V8's
 * precise coverage (node:inspector, `Profiler.takePreciseCoverage`), not by reading imports:
 *
 * - `phone-start`: `POST /flows` of a phone flow through the flow handler on node:http, until the Twilio provider's
 *   send has left for Twilio (its fake);
 * - `ussd-webhook`: the gateway's signed USSD webhook (sent by its fake) through the webhook endpoint on node:http,
 *   until the flow is `verified`;
 * - `event-webhook`: a lifecycle event (`verified`, from a code submitted to a phone flow) until the app's event
 *   webhook endpoint has received it.
 *
 * Each path runs once first, so that what loading modules and first uses (schemas built on first use) run is not
 * counted; counting starts after it, and a second run of the same path is what is measured. The engines' polls
 * (the flows' timers every second, the event webhook's outbox every 5 s) are background work, not the path: they are
 * off here (`pollMs: 0`, decision 1730), so that a poll that happens to fall inside the measured run does not add its files (it
 * added 1 to 3, run to run). Everything the path itself runs still runs: the timers are still scheduled by the
 * commit, and the event webhook's pass still runs after it. A project source file
 * is one under packages/<name>/src that is neither a test, a fixture, nor part of a fake or of the test double
 * (`packages/testing`): those stand in for the vendor and are not on a user's path.
 *
 * @module
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createVerikit } from '@verikit/core';
import { createGatewayProvider } from '@verikit/gateway';
import { generateWebhookSecret, startGatewayFake } from '@verikit/gateway/fake';
import { createFlowHandler, createWebhookHandler, toNodeHandler } from '@verikit/http';
import { createTestProviderV1, freshPhoneNumber } from '@verikit/testing';
import { createTwilioProvider } from '@verikit/twilio';
import { startTwilioFake } from '@verikit/twilio/fake';

const repositoryRoot = fileURLToPath(new URL('..', import.meta.url));
const secret = 'path-files-engine-secret-0123456789abcdef';
/** No timer poll: see the module comment. */
const timers = { pollMs: 0 };

/** A path, set up once: `run` goes through it once, `close` frees what the setup holds. */
export interface MeasuredPath {
  run(): Promise<void>;
  close(): Promise<void>;
}

/** Whether a script V8 ran is one of the project's own source files (see the module comment). */
export function isProjectSource(url: string): boolean {
  const packages = pathToFileURL(`${repositoryRoot}packages/`).href;
  if (!url.startsWith(packages)) return false;
  const inside = url.slice(packages.length);
  return (
    /^[^/]+\/src\//.test(inside) &&
    !/\.(test|fixtures)\.tsx?$/.test(inside) &&
    !/\/fake\//.test(inside) &&
    !inside.startsWith('testing/')
  );
}

/** The project source files (repository paths, sorted) with a function that ran while `work` ran. */
export async function filesRunBy(work: () => Promise<void>): Promise<string[]> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    await work();
    const { result } = await session.post('Profiler.takePreciseCoverage');
    await session.post('Profiler.stopPreciseCoverage');
    return result
      .filter((script) => isProjectSource(script.url))
      .filter((script) => script.functions.some((fn) => fn.ranges[0]!.count > 0))
      .map((script) => fileURLToPath(script.url).slice(repositoryRoot.length))
      .sort();
  } finally {
    session.disconnect();
  }
}

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** `POST /flows` of a phone flow on node:http, answered once the Twilio provider's send reached its fake. */
export async function phoneStartPath(): Promise<MeasuredPath> {
  const fake = await startTwilioFake();
  const { accountSid, authToken, verifyServiceSid, verifyBaseUrl, apiBaseUrl } = fake.settings;
  const provider = createTwilioProvider({
    accountSid,
    authToken,
    verifyServiceSid,
    verifyBaseUrl,
    apiBaseUrl,
    from: '+15005550006',
  });
  const verikit = createVerikit({ provider, secret, timers });
  const server = createServer(toNodeHandler(createFlowHandler({ verikit })));
  const url = await listen(server);
  return {
    async run() {
      const response = await fetch(`${url}/flows`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ kind: 'phone', phoneNumber: freshPhoneNumber() }),
      });
      const view = (await response.json()) as { status?: string };
      if (response.status !== 201 || view.status !== 'awaiting-code')
        throw new Error(`phone start answered ${response.status} ${view.status}`);
    },
    async close() {
      await closeServer(server);
      await fake.close();
    },
  };
}

/** A USSD flow started beforehand; what is run is the gateway fake's signed webhook until the flow is verified. */
export async function ussdWebhookPath(): Promise<MeasuredPath> {
  const webhookSecret = generateWebhookSecret();
  let handler: (request: Request) => Promise<Response> = async () => new Response(null, { status: 503 });
  const server = createServer(toNodeHandler((request: Request) => handler(request)));
  const url = await listen(server);
  const fake = await startGatewayFake({ webhookUrl: `${url}/webhooks`, webhookSecret });
  const provider = createGatewayProvider({
    apiKey: fake.apiKey,
    baseUrl: fake.baseUrl,
    ussdBaseUrl: fake.ussdBaseUrl,
    defaultSender: 'Verikit',
  });
  const verikit = createVerikit({ provider, secret, timers });
  handler = createWebhookHandler({ verikit, secret: webhookSecret });
  const started: Array<{ id: string; phoneNumber: string; otp: string }> = [];
  // One started flow per run, started before counting begins.
  for (let flow = 0; flow < 2; flow += 1) {
    const phoneNumber = freshPhoneNumber();
    const view = await verikit.start({ kind: 'ussd', phoneNumber });
    started.push({ id: view.id, phoneNumber, otp: view.otp! });
  }
  return {
    async run() {
      const flow = started.shift()!;
      const delivery = await fake.dialUssd(flow.phoneNumber, { otp: flow.otp });
      const view = await verikit.get(flow.id);
      if (!delivery.delivered || view.status !== 'verified')
        throw new Error(`USSD webhook left the flow ${view.status}`);
    },
    async close() {
      await fake.close();
      await closeServer(server);
    },
  };
}

/** Phone flows started beforehand (on the test double); what is run is a correct code until its `verified` event is received. */
export async function eventWebhookPath(): Promise<MeasuredPath> {
  const received: Array<(type: string) => void> = [];
  const receiver = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      response.writeHead(204).end();
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string };
      for (const hear of received) hear(event.type);
    });
  });
  const url = await listen(receiver);
  const provider = createTestProviderV1();
  const verikit = createVerikit({
    provider,
    secret,
    timers,
    eventWebhook: { url, secret: generateWebhookSecret(), types: ['verified'], pollMs: 0 },
  });
  const flows: string[] = [];
  for (let flow = 0; flow < 2; flow += 1)
    flows.push((await verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() })).id);
  return {
    async run() {
      const heard = new Promise<void>((resolve) => {
        const hear = (type: string) => {
          if (type !== 'flow.verified') return;
          received.splice(received.indexOf(hear), 1);
          resolve();
        };
        received.push(hear);
      });
      const view = await verikit.send(flows.shift()!, { type: 'submit-code', code: '123456' });
      if (view.status !== 'verified') throw new Error(`the code left the flow ${view.status}`);
      await heard;
    },
    async close() {
      await closeServer(receiver);
    },
  };
}

/** Runs a path once to warm it, then once measured; the files that second run ran. */
export async function measurePath(setUp: () => Promise<MeasuredPath>): Promise<string[]> {
  const path = await setUp();
  try {
    await path.run();
    return await filesRunBy(() => path.run());
  } finally {
    await path.close();
  }
}

const paths = { 'phone-start': phoneStartPath, 'ussd-webhook': ussdWebhookPath, 'event-webhook': eventWebhookPath };

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const counts: string[] = [];
  for (const [name, setUp] of Object.entries(paths)) {
    const files = await measurePath(setUp);
    console.log(`\n${name}: ${files.length} project files`);
    for (const file of files) console.log(`  ${file}`);
    counts.push(`${name} ${files.length}`);
  }
  console.log(`\n${counts.join(', ')}`);
}
