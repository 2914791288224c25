import {
  CapabilityError,
  InvalidInputError,
  ProviderRejectedError,
  type PhoneCapabilityV1,
  type PhoneChannel,
  type ProviderV1,
} from '@verikit/provider';
import { derivedInput } from './derived-input.js';

/** Between a member's name and its own requestId in the requestIds the composed phone capability returns. */
const separator = '~';

/**
 * One phone capability from several providers, each serving the channels it has (WhatsApp from one, SMS and
 * voice from another): a send goes to the first member with its channel, and a resend to the member that sent
 * the code it repeats when that member has the channel. The requestId names the member that sent the code
 * (`twilio~VE…`), so a check goes to the provider that sent the code the user is entering, on any instance.
 */
export function phoneByChannel(composedName: string, members: readonly ProviderV1[]): PhoneCapabilityV1 {
  if (members.length === 0)
    throw new InvalidInputError([{ field: 'phone', message: 'must name at least one provider' }]);
  const byName = new Map<string, ProviderV1>();
  for (const [index, member] of members.entries()) {
    if (typeof member !== 'object' || member === null || member.specificationVersion !== 'v1' || !member.phone)
      throw new InvalidInputError([
        { field: `phone[${index}]`, message: 'must be a provider with phone verification' },
      ]);
    if (byName.has(member.name))
      throw new InvalidInputError([{ field: `phone[${index}]`, message: `repeats the name ${member.name}` }]);
    byName.set(member.name, member);
  }
  const channels = [...new Set(members.flatMap((member) => member.phone!.channels))];
  const split = (requestId: unknown): { member?: ProviderV1; inner: string } => {
    const text = typeof requestId === 'string' ? requestId : '';
    const at = text.indexOf(separator);
    const member = at > 0 ? byName.get(text.slice(0, at)) : undefined;
    return member === undefined ? { inner: text } : { member, inner: text.slice(at + 1) };
  };
  const has = (member: ProviderV1 | undefined, channel: PhoneChannel) =>
    member?.phone?.channels.includes(channel) === true;
  return Object.freeze({
    channels,
    // A code we generated must be accepted whichever member a channel leads to.
    customCode: members.every((member) => member.phone!.customCode === true),
    async send(input, context) {
      const { resendOf, ...rest } = input;
      const previous = resendOf === undefined ? undefined : split(resendOf);
      const member = has(previous?.member, input.channel)
        ? previous!.member!
        : members.find((each) => has(each, input.channel));
      if (member === undefined)
        throw new CapabilityError(`phone verification by ${input.channel}`, composedName, { field: 'channel' });
      const result = await member.phone!.send(
        derivedInput(input, member === previous?.member ? { ...rest, resendOf: previous.inner } : rest),
        context,
      );
      // The message id is the member's own: its delivery receipts name it, so it reaches the flow as it is.
      return {
        requestId: `${member.name}${separator}${result.requestId}`,
        ...(result.messageId === undefined ? {} : { messageId: result.messageId }),
        sentBy: result.sentBy ?? member.name,
      };
    },
    async check(input, context) {
      const { member, inner } = split(input?.requestId);
      if (member === undefined)
        throw new ProviderRejectedError(
          `${composedName} phone.check: the requestId names no provider of this composition`,
        );
      return member.phone!.check(derivedInput(input, { ...input, requestId: inner }), context);
    },
  } satisfies PhoneCapabilityV1);
}
