import type { z } from 'zod';
import { CapabilityError } from '../../errors/capability-error.js';
import { parseProviderInputV1 } from '../../schemas.js';
import type { InboundChannelV1 } from './inbound-capability-v1.js';
import type { IdentityType } from './identity-capability-v1.js';
import type { IdentityStep } from './identity-steps-v1.js';
import { phoneSendInputSchemaV1, type PhoneChannel } from './phone-capability-v1.js';
import type { ProviderV1 } from './provider-v1.js';

/** What a flow needs from a provider, checked before anything is sent or stored. */
export type CapabilityNeedV1 =
  | {
      /** Phone verification. */
      readonly capability: 'phone';
      /** The channel the code must travel by. */
      readonly channel: PhoneChannel;
      /** True when the flow sends a code it generated. */
      readonly customCode?: boolean;
    }
  | {
      /** SMS sending. */
      readonly capability: 'sms';
      /** The sender the call names; absent: the provider needs a default sender. */
      readonly from?: string | undefined;
    }
  | {
      /** WhatsApp sending. */
      readonly capability: 'whatsapp';
    }
  | {
      /** USSD verification. */
      readonly capability: 'ussd';
    }
  | {
      /** Dial-in verification: the carrier reports the number that dialled a USSD code. */
      readonly capability: 'dial-in';
    }
  | {
      /** Receiving messages: a plan's inbound step on `channel`. */
      readonly capability: 'inbound';
      /** The channel the user sends on. */
      readonly channel: InboundChannelV1;
    }
  | {
      /** BVN/NIN verification. */
      readonly capability: 'identity';
      /** The kind of number to verify. */
      readonly idType: IdentityType;
      /** True when the number is a 16-character virtual NIN. */
      readonly virtualNin?: boolean;
    }
  | {
      /** An identity step besides the OTP (`identitySteps`). */
      readonly capability: 'identity-step';
      /** The step. */
      readonly step: Exclude<IdentityStep, 'otp'>;
      /** The kind of number. */
      readonly idType: IdentityType;
      /** True when the number is a 16-character virtual NIN. */
      readonly virtualNin?: boolean;
    }
  | {
      /** Webhook parsing, for flows whose result arrives as an event. */
      readonly capability: 'webhooks';
    };

/**
 * Throws a `CapabilityError` naming the capability (and the channel, identity type or requirement)
 * when `provider` cannot serve `need`; returns quietly when it can. Reads only what the provider
 * declares, so it makes no request: the engine calls it when a flow starts, before it stores or sends.
 */
export function requireCapabilityV1(provider: ProviderV1, need: CapabilityNeedV1): void {
  const missing = (what: string, field?: string) =>
    new CapabilityError(what, provider.name, field === undefined ? {} : { field });
  switch (need.capability) {
    case 'phone': {
      const phone = provider.phone;
      if (phone === undefined) throw missing('phone verification');
      if (!phone.channels.includes(need.channel)) throw missing(`phone verification by ${need.channel}`, 'channel');
      if (need.customCode === true && phone.customCode !== true)
        throw missing('phone verification with a code we generate', 'code');
      return;
    }
    case 'sms': {
      const sms = provider.sms;
      if (sms === undefined) throw missing('sms');
      if (need.from === undefined && sms.requires?.includes('sender') === true)
        throw missing('sms without a sender (configure a default sender)', 'from');
      return;
    }
    case 'identity': {
      const identity = provider.identity;
      if (identity === undefined || !identity.types.includes(need.idType))
        throw missing(`${need.idType} verification`, 'idType');
      if (need.virtualNin === true && identity.virtualNin !== true)
        throw missing('nin verification by virtual NIN (vNIN)', 'number');
      return;
    }
    case 'identity-step': {
      const steps = provider.identitySteps;
      const what = `${need.idType} ${need.step === 'face' ? 'face match' : need.step}`;
      if (steps === undefined || !steps.types.includes(need.idType) || steps[need.step] === undefined)
        throw missing(what, 'steps');
      if (need.virtualNin === true && steps.virtualNin !== true)
        throw missing(`${what} by virtual NIN (vNIN)`, 'number');
      return;
    }
    case 'dial-in':
      if (provider.dialIn === undefined) throw missing('dial-in verification');
      return;
    case 'inbound':
      if (provider.inbound?.channels.includes(need.channel) !== true)
        throw missing(`receiving ${need.channel === 'sms' ? 'SMS' : 'WhatsApp'} messages`, 'channels');
      return;
    default:
      if (provider[need.capability] === undefined)
        throw missing(need.capability === 'ussd' ? 'ussd verification' : need.capability);
  }
}

/**
 * A phone send's input as every phone provider reads it: parsed by the spec's schema (unless the engine marked it
 * parsed, decision 1520), then its channel and any code we generated checked against what `provider` declares: a
 * `CapabilityError` for a channel or a code the provider lacks, an `InvalidInputError` for malformed input.
 */
export function readPhoneSendInputV1(provider: ProviderV1, input: unknown): z.output<typeof phoneSendInputSchemaV1> {
  const parsed = parseProviderInputV1(phoneSendInputSchemaV1, input);
  requireCapabilityV1(provider, {
    capability: 'phone',
    channel: parsed.channel,
    customCode: parsed.code !== undefined,
  });
  return parsed;
}
