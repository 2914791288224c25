import { z } from 'zod';
import { codeSchema, identityNumberSchema, phoneNumberSchema, senderSchema, smsMessageSchema, whatsAppMessageSchema } from '@verikit/provider';

/** Input of `verikit.start`. */
export const startInputSchema = z.discriminatedUnion(
  'kind',
  [
    z.strictObject({ kind: z.literal('ussd'), phoneNumber: phoneNumberSchema }),
    z.strictObject({
      kind: z.literal('phone'),
      phoneNumber: phoneNumberSchema,
      channel: z.enum(['sms', 'voice', 'whatsapp'], { error: 'must be sms, voice or whatsapp' }).default('sms'),
      from: senderSchema.optional(),
    }),
    z.strictObject({
      kind: z.literal('identity'),
      idType: z.enum(['bvn', 'nin'], { error: 'must be bvn or nin' }),
      number: identityNumberSchema,
    }),
  ],
  { error: 'must be one of ussd, phone, identity' },
);

/** What `verikit.start` takes. */
export type StartInput = z.input<typeof startInputSchema>;

/** A start input after parsing (defaults applied): what a flow definition receives. */
export type ParsedStartInput = z.output<typeof startInputSchema>;

/** Input of `verikit.send`: the events a user can send. */
export const userEventSchema = z.discriminatedUnion(
  'type',
  [
    z.strictObject({ type: z.literal('submit-code'), code: codeSchema }),
    z.strictObject({ type: z.literal('resend') }),
    z.strictObject({ type: z.literal('restart') }),
    z.strictObject({ type: z.literal('cancel') }),
  ],
  { error: 'must be one of submit-code, resend, restart, cancel' },
);

/** What `verikit.send` takes. */
export type UserEvent = z.input<typeof userEventSchema>;

/** A user event after parsing: what a flow definition turns into its machine's event. */
export type ParsedUserEvent = z.output<typeof userEventSchema>;

/** Input of `verikit.sendSms`. `from` falls back to the engine's `defaultSender`, then to the provider's. */
export const sendSmsInputSchema = z.strictObject({
  from: senderSchema.optional(),
  to: phoneNumberSchema,
  message: smsMessageSchema,
});

/** What `verikit.sendSms` takes. */
export type SendSmsInput = z.input<typeof sendSmsInputSchema>;

/** Input of `verikit.sendWhatsApp`. */
export const sendWhatsAppInputSchema = z.strictObject({ phoneNumber: phoneNumberSchema, message: whatsAppMessageSchema });

/** What `verikit.sendWhatsApp` takes. */
export type SendWhatsAppInput = z.input<typeof sendWhatsAppInputSchema>;

/** Input of `verikit.receive`: an event a provider pushed, after its signature was checked. */
export const providerEventSchema = z.strictObject({
  type: z.literal('ussd-verification', { error: 'must be ussd-verification' }),
  phoneNumber: phoneNumberSchema,
  status: z.enum(['success', 'failed'], { error: 'must be success or failed' }),
});
