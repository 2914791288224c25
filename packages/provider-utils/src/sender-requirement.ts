import type { SmsCapabilityV1 } from '@verikit/provider';

/** The declaration of a capability that has no sender of its own. */
const needsSender = Object.freeze({ requires: Object.freeze(['sender'] as const) });

/**
 * What a messaging capability declares about its sender, to spread into it: `requires: ['sender']` when none of
 * `defaults` (the provider's configured senders, as read at creation) is set, so that a flow naming no `from` is
 * refused when it starts rather than at its first send; nothing when one is.
 *
 * @example
 * sms: { ...senderRequirement(resolved.from(), resolved.messagingServiceSid()), async send(input, context) { … } },
 */
export function senderRequirement(...defaults: readonly (string | undefined)[]): Pick<SmsCapabilityV1, 'requires'> {
  return defaults.every((sender) => sender === undefined) ? needsSender : {};
}
