import { createGatewayProvider } from './index.js';
import type { ProviderV1 } from '@verikit/provider';
import { magicIdentityNumbers, magicPhoneNumbers, type MagicBehaviour } from './fake/gateway-magic-numbers.js';
import type { GatewayFake } from './fake/start-gateway-fake.js';

/** The gateway provider pointed at `sandbox`, as the tests of the pair use it (sender `Verikit`, 5 s timeout). */
export function gatewayOver(sandbox: GatewayFake): ProviderV1 {
  return createGatewayProvider({
    apiKey: sandbox.apiKey,
    baseUrl: sandbox.baseUrl,
    ussdBaseUrl: sandbox.ussdBaseUrl,
    defaultSender: 'Verikit',
    timeout: 5000,
  });
}

const numberFor = (table: Readonly<Record<string, MagicBehaviour>>, wanted: MagicBehaviour) =>
  Object.entries(table).find(([, value]) => value === wanted)![0];

/** The magic phone number that makes the sandbox behave as `wanted`. */
export const magicPhoneNumberFor = (wanted: MagicBehaviour): string => numberFor(magicPhoneNumbers, wanted);

/** The magic BVN/NIN that makes the sandbox behave as `wanted`. */
export const magicIdentityNumberFor = (wanted: MagicBehaviour): string => numberFor(magicIdentityNumbers, wanted);
