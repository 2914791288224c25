import { createVerikit } from '@verikit/core';
import type { ProviderV1 } from '@verikit/provider';

/**
 * The signup flow, written once: verify the phone number by a code, then send a welcome SMS. `readCode` plays
 * the user reading the code off their phone. The provider is whatever the environment chose.
 */
export async function signup(
  provider: ProviderV1,
  phoneNumber: string,
  readCode: (phoneNumber: string) => Promise<string>,
): Promise<string> {
  const verikit = createVerikit({
    provider,
    secret: process.env['VERIKIT_SECRET'] ?? 'providers-per-env-example-secret-0123456789',
  });
  const flow = await verikit.start({ kind: 'phone', phoneNumber });
  const checked = await verikit.send(flow.id, { type: 'submit-code', code: await readCode(phoneNumber) });
  if (checked.status === 'verified')
    await verikit.sendSms({ from: 'Acme', to: phoneNumber, message: 'Welcome to Acme!' });
  return checked.status;
}
