import { CapabilityError, ProviderProtocolError, type PhoneChannel } from '@verikit/provider';
import { plainUserEvent, type FlowDefinition } from './flow-definition.js';
import { phoneNumberKey } from './number-keys.js';
import { createPhoneMachine } from './phone-machine.js';

type PhoneStart = { kind: 'phone'; phoneNumber: string; channel: PhoneChannel; from?: string | undefined };

/** Phone verification: the provider sends a code and checks the code the user submits. */
export const phoneFlow: FlowDefinition<PhoneStart> = {
  kind: 'phone',
  createMachine: createPhoneMachine,
  userEvents: ['submit-code', 'resend', 'cancel'],
  check(input, { provider }) {
    if (!provider.phone) throw new CapabilityError('phone', provider.name);
    if (!provider.phone.channels.includes(input.channel)) throw new CapabilityError(`the ${input.channel} channel`, provider.name, { field: 'channel' });
  },
  machineInput: ({ kind: _kind, ...input }, { flowId, now }) => ({ flowId, now, ...input }),
  // The same key as the USSD flow's: one hourly limit per phone number, whichever flow sends.
  sendLimitKey: (context, { secrets }) => phoneNumberKey(secrets, context.phoneNumber),
  toEvent: (event, { now }) => plainUserEvent(event, now),
  effects: {
    'phone.send': {
      send: true,
      async run({ input, context, env }) {
        const result = await env.provider.phone!.send(
          { phoneNumber: input.phoneNumber!, channel: input.channel as PhoneChannel, ...(input.from ? { from: input.from } : {}) },
          context,
        );
        if (typeof result?.requestId !== 'string' || result.requestId === '') {
          throw new ProviderProtocolError('the provider returned no requestId', { field: 'requestId' });
        }
        return { requestId: result.requestId };
      },
    },
    'phone.check': {
      send: false,
      async run({ input, context, env }) {
        const result = await env.provider.phone!.check({ requestId: input.requestId!, code: input.code! }, context);
        if (typeof result?.valid !== 'boolean') throw new ProviderProtocolError('the provider returned no validity', { field: 'valid' });
        return { valid: result.valid };
      },
    },
  },
};
