/**
 * `pnpm demo`: every verikit flow end to end, on the real wire, printing each state change as a UI
 * would see it, with a line saying why where the attempt counter moves.
 *
 * The embedded default: the sandbox (a local HTTP server that behaves like the service) started
 * in-process, the gateway provider talking to it over HTTP, and the engine on its in-memory Keyv.
 * The app's own HTTP server (the flow handler) receives the sandbox's signed USSD_VERIFICATION
 * webhook, so the USSD flow completes the way it does in production.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createVerikit, type FlowView, type Verikit } from '@verikit/core';
import { createFlowHandler, toNodeHandler } from '@verikit/http';
import { createGatewayProvider } from '@verikit/gateway';
import { defaultTestIdentities, generateWebhookSecret, startGatewayFake } from '@verikit/gateway/fake';
import { attemptNote } from './attempt-note.js';

const secret = 'demo-secret-not-for-production-0123456789';
const webhookSecret = generateWebhookSecret();

// The app's server: the flow HTTP API, whose /webhooks route takes the service's webhooks.
let handle: ReturnType<typeof toNodeHandler> | undefined;
const app = createServer((req, res) => handle!(req, res));
await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;

const sandbox = await startGatewayFake({ webhookUrl: `${appUrl}/webhooks`, webhookSecret });
const provider = createGatewayProvider({
  apiKey: sandbox.apiKey,
  baseUrl: sandbox.baseUrl,
  ussdBaseUrl: sandbox.ussdBaseUrl,
  defaultSender: 'Verikit',
});
const verikit = createVerikit({ provider, secret });
handle = toNodeHandler(createFlowHandler({ verikit, webhooks: { secret: webhookSecret } }));
console.log(`sandbox at ${sandbox.url}, app (webhooks) at ${appUrl}`);

/** The last view shown of each flow, so a line can say why the attempt counter moved. */
const shown = new Map<string, FlowView>();

function show(view: FlowView): void {
  const parts = [`${view.kind.padEnd(8)} ${view.id.slice(0, 8)} v${view.version} ${view.status}`];
  if (view.attemptsLeft !== undefined) parts.push(`attempts left ${view.attemptsLeft}`);
  if (view.ussdCode) parts.push(`dial ${view.ussdCode}, enter ${view.otp}`);
  if (view.error) parts.push(`(${view.error.code}: ${view.error.message})`);
  if (view.allowed.length) parts.push(`[can: ${view.allowed.join(', ')}]`);
  console.log(`  ${parts.join(' · ')}`);
  const note = attemptNote(shown.get(view.id), view);
  if (note !== undefined) console.log(`    ↳ ${note}`);
  shown.set(view.id, view);
}

/** A send result as a sentence: which provider took the message, and its id when the provider gave one. */
function sent(result: { provider: string; messageId?: string }): string {
  return `sent through ${result.provider}${result.messageId === undefined ? '' : `, message id ${result.messageId}`}`;
}

/** Starts a flow, prints its first view, and prints every committed change after it. */
async function watched(engine: Verikit, start: () => Promise<FlowView>): Promise<FlowView> {
  const view = await start();
  show(view);
  engine.subscribe(view.id, show);
  return view;
}

/** Resolves once the flow is done (verified, failed, expired, locked or cancelled). */
function settled(engine: Verikit, flowId: string): Promise<FlowView> {
  return new Promise((resolve) => {
    const unsubscribe = engine.subscribe(flowId, (view) => {
      if (!view.done) return;
      unsubscribe();
      resolve(view);
    });
  });
}

const bvn = defaultTestIdentities.find((identity) => identity.idType === 'bvn')!;
const nin = defaultTestIdentities.find((identity) => identity.idType === 'nin')!;

try {
  console.log('\n1. USSD: the user dials the code and enters the OTP; the service sends a signed webhook');
  {
    const phoneNumber = '+2348012345678';
    const flow = await watched(verikit, () => verikit.start({ kind: 'ussd', phoneNumber }));
    const done = settled(verikit, flow.id);
    const delivery = await sandbox.dialUssd(phoneNumber, { otp: flow.otp! });
    console.log(
      `  webhook ${delivery.id}: HTTP ${delivery.lastStatus} after ${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'}`,
    );
    await done;
  }

  console.log('\n2. Phone: a wrong code, then the one the sandbox sent by SMS');
  {
    const phoneNumber = '+2348022223333';
    const flow = await watched(verikit, () => verikit.start({ kind: 'phone', phoneNumber }));
    await verikit.send(flow.id, { type: 'submit-code', code: '000000' });
    await verikit.send(flow.id, { type: 'submit-code', code: sandbox.lastCode(phoneNumber)! });
  }

  console.log(`\n3. BVN: the engine makes an OTP; the service delivers it to the phone registered for the BVN`);
  {
    const flow = await watched(verikit, () => verikit.start({ kind: 'identity', idType: 'bvn', number: bvn.number }));
    console.log(`  the view shows the number masked: ${flow.number}`);
    await verikit.send(flow.id, { type: 'submit-code', code: sandbox.lastCode(bvn.phoneNumber)! });
  }

  console.log('\n4. NIN: three wrong codes lock the flow (maxAttempts 3)');
  {
    const strict = createVerikit({ provider, secret, policies: { maxAttempts: 3 } });
    const flow = await watched(strict, () => strict.start({ kind: 'identity', idType: 'nin', number: nin.number }));
    for (const code of ['111111', '222222', '333333']) await strict.send(flow.id, { type: 'submit-code', code });
    await strict
      .send(flow.id, { type: 'submit-code', code: '444444' })
      .catch((error: Error) => console.log(`  refused: ${error.message}`));
  }

  console.log('\n5. Phone: the code expires (TTL 1 s here) and no timer is set; reading the flow shows it');
  {
    const quick = createVerikit({ provider, secret, policies: { codeTtlMs: 1000 } });
    const flow = await watched(quick, () => quick.start({ kind: 'phone', phoneNumber: '+2348044445555' }));
    await new Promise((resolve) => setTimeout(resolve, 1100));
    show(await quick.get(flow.id));
  }

  console.log('\n6. Messages, delivered to the sandbox outbox');
  console.log(`  sms: ${sent(await verikit.sendSms({ to: '+2348012345678', message: 'Welcome to Acme!' }))}`);
  console.log(`  whatsapp: ${sent(await verikit.sendWhatsApp({ to: '+2348012345678', message: 'Welcome to Acme!' }))}`);
  console.log(`  outbox: ${sandbox.outbox.map((message) => message.kind).join(', ')}`);
  console.log('\nDone.');
} finally {
  await sandbox.close();
  app.closeAllConnections();
  await new Promise((resolve) => app.close(resolve));
}
