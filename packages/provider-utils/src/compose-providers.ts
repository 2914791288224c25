import { InvalidInputError, type ProviderV1 } from '@verikit/provider';
import { mergedCircuits } from './merged-circuits.js';
import { phoneByChannel } from './phone-by-channel.js';

/** Which provider serves each capability. Each value is a whole provider; only its named capability is used. */
export interface ProviderComposition {
  /** The composed provider's name. Default `composed`. */
  readonly name?: string;
  /**
   * Serves phone verification (send and check; a resend and every check go back to it). A list serves each
   * channel from the first provider that has it (`[termii, twilio]`: Termii's SMS, Twilio's WhatsApp and
   * voice); a check goes to the provider that sent the code being checked, named in its requestId.
   */
  readonly phone?: ProviderV1 | readonly ProviderV1[];
  /** Serves `sms.send`. */
  readonly sms?: ProviderV1;
  /** Serves `whatsapp.send`. */
  readonly whatsapp?: ProviderV1;
  /** Serves USSD verification; usually the same provider as `webhooks`, which brings its results. */
  readonly ussd?: ProviderV1;
  /** Serves BVN/NIN verification. */
  readonly identity?: ProviderV1;
  /** Serves dial-in verification: its USSD service code is the one users dial, and it reads their sessions. */
  readonly dialIn?: ProviderV1;
  /** Serves a plan's inbound steps: its numbers are the ones users send to, and its webhook brings their messages. */
  readonly inbound?: ProviderV1;
  /** Parses the pushed events (USSD results). */
  readonly webhooks?: ProviderV1;
}

const capabilities = ['phone', 'sms', 'whatsapp', 'ussd', 'identity', 'dialIn', 'inbound', 'webhooks'] as const;

/**
 * Builds one provider from several, each capability from the provider best at it: Twilio for phone
 * verification, Termii for SMS and WhatsApp, the gateway for USSD and BVN/NIN, Africa's Talking for dial-in.
 * Capabilities are taken as they are (no wrapper, no cost per call); a capability not given is absent, so a flow that needs it
 * fails at start with a `CapabilityError`. Throws an `InvalidInputError` naming the key when a given
 * provider lacks the capability it was given for.
 *
 * @example
 * const provider = composeProviders({ phone: [termii, twilio], sms: termii, whatsapp: termii, ussd: gateway, identity: gateway, webhooks: gateway });
 * @example
 * const provider = composeProviders({ phone: twilio, sms: termii, whatsapp: termii, ussd: gateway, identity: gateway, webhooks: gateway });
 */
export function composeProviders(composition: ProviderComposition): ProviderV1 {
  if (typeof composition !== 'object' || composition === null)
    throw new InvalidInputError([{ field: 'input', message: 'must be an object' }]);
  const unknown = Object.keys(composition).filter(
    (key) => key !== 'name' && !(capabilities as readonly string[]).includes(key),
  );
  if (unknown.length > 0)
    throw new InvalidInputError([
      { field: 'input', message: `has unknown field(s): ${unknown.map((key) => key.slice(0, 40)).join(', ')}` },
    ]);
  const name = composition.name ?? 'composed';
  if (typeof name !== 'string' || !/^[a-z][a-z0-9-]{0,31}$/.test(name)) {
    throw new InvalidInputError([{ field: 'name', message: 'must be 1 to 32 lowercase letters, digits or dashes' }]);
  }
  const provider: { -readonly [K in keyof ProviderV1]: ProviderV1[K] } = { specificationVersion: 'v1', name };
  for (const capability of capabilities) {
    if (capability === 'phone' && Array.isArray(composition.phone)) {
      provider.phone = phoneByChannel(name, composition.phone);
      continue;
    }
    const source = composition[capability] as ProviderV1 | undefined;
    if (source === undefined) continue;
    if (typeof source !== 'object' || source === null || source.specificationVersion !== 'v1') {
      throw new InvalidInputError([{ field: capability, message: 'must be a provider of specification v1' }]);
    }
    if (source[capability] === undefined)
      throw new InvalidInputError([
        { field: capability, message: `is provider ${source.name}, which has no ${capability} capability` },
      ]);
    Object.assign(provider, { [capability]: source[capability] });
  }
  // The breakers of the failover providers composed (each once), for the engine to report.
  const parts = capabilities.flatMap((capability) => composition[capability] ?? []) as ProviderV1[];
  const circuits = mergedCircuits(parts);
  if (circuits !== undefined) provider.circuits = circuits;
  return Object.freeze(provider);
}
