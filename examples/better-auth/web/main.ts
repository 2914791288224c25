import { createAuthClient } from 'better-auth/client';
import { verikitAuthClient } from '@verikit/better-auth/client';
import { createFlowClient } from '@verikit/client';

// The verikit flow routes live below Better Auth's base path; the auth client talks to the plugin's endpoints.
const flows = createFlowClient({ baseUrl: '/api/auth/verikit' });
const authClient = createAuthClient({ plugins: [verikitAuthClient()] });

const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
function say(text: string): void {
  element('status').textContent = text;
}
function fail(text: string): void {
  element('error').textContent = text;
}

/** What the code form verifies next: the phone flow at sign-in, then the BVN flow once signed in. */
let pending: { flowId: string; done: (proof: string) => Promise<void> } | undefined;

async function showUser(): Promise<void> {
  const session = await authClient.getSession();
  const user = session.data?.user as { phoneNumber?: string } | undefined;
  if (user?.phoneNumber === undefined) return;
  element('phone-form').hidden = true;
  element('signed-in').hidden = false;
  element('user-phone').textContent = user.phoneNumber;
}

async function verify(input: Parameters<typeof flows.start>[0], done: (proof: string) => Promise<void>) {
  fail('');
  const view = await flows.start(input);
  if (view.status !== 'awaiting-code') return fail(view.error?.message ?? 'The code could not be sent. Try again.');
  pending = { flowId: view.id, done };
  element('code-form').hidden = false;
  say('We sent a code. Enter it below.');
  element<HTMLInputElement>('code').focus();
}

element('phone-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const phoneNumber = element<HTMLInputElement>('phone').value.trim();
  void verify({ kind: 'phone', phoneNumber }, async (proof) => {
    const { error } = await authClient.signIn.phoneProof({ phoneNumber, proof });
    if (error) return fail(error.message ?? 'Signing in failed. Try again.');
    say('Signed in.');
    await showUser();
  }).catch((error: Error) => fail(error.message));
});

element('code-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const current = pending;
  if (current === undefined) return;
  const code = element<HTMLInputElement>('code').value.trim();
  void (async () => {
    const view = await flows.send(current.flowId, { type: 'submit-code', code });
    if (view.status !== 'verified') return fail(view.error?.message ?? 'That code is not correct.');
    fail('');
    element('code-form').hidden = true;
    element<HTMLInputElement>('code').value = '';
    pending = undefined;
    await current.done((await flows.proof(current.flowId)).token);
  })().catch((error: Error) => fail(error.message));
});

element('bvn-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const number = element<HTMLInputElement>('bvn').value.trim();
  void verify({ kind: 'identity', idType: 'bvn', number }, async (proof) => {
    const { data, error } = await authClient.identity.attachProof({ idType: 'bvn', number, proof });
    if (error) return fail(error.message ?? 'The BVN could not be attached. Try again.');
    element('bvn-form').hidden = true;
    element('bvn-done').hidden = false;
    element('bvn-masked').textContent = data.identity.number;
    say('BVN verified.');
  }).catch((error: Error) => fail(error.message));
});

void showUser();
