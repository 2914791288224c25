import { createGatewayProvider } from './index.js';
import type { ProviderV1 } from '@verikit/provider';
import { magicNumberOf } from '@verikit/testing';
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

/** The magic phone number that makes the sandbox behave as `wanted`. */
export const magicPhoneNumberFor = (wanted: MagicBehaviour): string => magicNumberOf(magicPhoneNumbers, wanted);

/** The magic BVN/NIN that makes the sandbox behave as `wanted`. */
export const magicIdentityNumberFor = (wanted: MagicBehaviour): string => magicNumberOf(magicIdentityNumbers, wanted);
