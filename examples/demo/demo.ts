/**
 * `pnpm demo`: every verikit flow end to end, printing each state change as a UI would see it.
 * Runs against the in-memory test double; see docs/ for the sandbox and the real service.
 */
import { createVerikit, type FlowView, type Verikit } from '@verikit/core';
import { createTestProvider } from '@verikit/testing';

const provider = createTestProvider({ identities: { '22212345678': '+2348031112222' } });
const secret = 'demo-secret-not-for-production-0123456789';

function show(view: FlowView): void {
  const parts = [`${view.kind.padEnd(8)} ${view.id.slice(0, 8)} v${view.version} ${view.status}`];
  if (view.attemptsLeft !== undefined) parts.push(`attempts left ${view.attemptsLeft}`);
  if (view.ussdCode) parts.push(`dial ${view.ussdCode}, enter ${view.otp}`);
  if (view.error) parts.push(`(${view.error.code}: ${view.error.message})`);
  if (view.allowed.length) parts.push(`[can: ${view.allowed.join(', ')}]`);
  console.log('  ' + parts.join(' · '));
}

/** Starts a flow and prints every committed change of it. */
async function watched(verikit: Verikit, start: () => Promise<FlowView>): Promise<FlowView> {
  const view = await start();
  verikit.subscribe(view.id, show);
  return view;
}

const verikit = createVerikit({ provider, secret, defaultSender: 'Verikit' });
provider.onEvent((event) => verikit.receive(event));
const printAll = (view: FlowView) => show(view);

console.log('\n1. USSD: the user dials the code; the service reports success');
{
  const flow = await verikit.start({ kind: 'ussd', phoneNumber: '+2348012345678' });
  printAll(flow);
  verikit.subscribe(flow.id, show);
  await provider.completeUssd('+2348012345678', 'success');
}

console.log('\n2. Phone: a wrong code, then the right one');
{
  const flow = await verikit.start({ kind: 'phone', phoneNumber: '+2348022223333' });
  printAll(flow);
  verikit.subscribe(flow.id, show);
  await verikit.send(flow.id, { type: 'submit-code', code: '000000' });
  await verikit.send(flow.id, { type: 'submit-code', code: provider.lastCode('+2348022223333')! });
}

console.log('\n3. BVN: the engine makes an OTP, the provider delivers it to the registered phone');
{
  const flow = await verikit.start({ kind: 'identity', idType: 'bvn', number: '22212345678' });
  printAll(flow);
  verikit.subscribe(flow.id, show);
  await verikit.send(flow.id, { type: 'submit-code', code: provider.lastCode('+2348031112222')! });
}

console.log('\n4. NIN: three wrong codes lock the flow (maxAttempts 3)');
{
  const strict = createVerikit({ provider, secret, policies: { maxAttempts: 3 } });
  const flow = await strict.start({ kind: 'identity', idType: 'nin', number: '33312345678' });
  printAll(flow);
  strict.subscribe(flow.id, show);
  for (const code of ['111111', '222222', '333333']) await strict.send(flow.id, { type: 'submit-code', code });
  await strict.send(flow.id, { type: 'submit-code', code: '444444' }).catch((error: Error) => console.log(`  refused: ${error.message}`));
}

console.log('\n5. Phone: the code expires (TTL 1 s here) with no timer running; reading the flow shows it');
{
  const quick = createVerikit({ provider, secret, policies: { codeTtlMs: 1000 } });
  const flow = await watched(quick, () => quick.start({ kind: 'phone', phoneNumber: '+2348044445555' }));
  printAll(flow);
  await new Promise((resolve) => setTimeout(resolve, 1100));
  printAll(await quick.get(flow.id));
}

console.log('\n6. Messages');
console.log('  sms:', await verikit.sendSms({ to: '+2348012345678', message: 'Welcome to Acme!' }));
console.log('  whatsapp:', await verikit.sendWhatsApp({ phoneNumber: '+2348012345678', message: 'Welcome to Acme!' }));
console.log('\nDone.');
