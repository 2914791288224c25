import { z } from 'zod';
import {
  codeSchema,
  identityNumberSchema,
  phoneNumberSchema,
  senderSchema,
  smsMessageSchema,
  whatsAppMessageSchema,
} from '@verikit/provider';

/** A channel a phone code travels by. */
const phoneChannelSchema = z.literal(['sms', 'voice', 'whatsapp'], { error: 'must be sms, voice or whatsapp' });

/** A BCP 47 language tag, as providers take it: `en`, `fr`, `pt-BR`, `zh-Hant`. */
const localeSchema = z
  .string()
  .regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8}){0,2}$/, { error: 'must be a language tag such as en, fr or pt-BR' });

/** Input of `verikit.start`. */
export const startInputSchema = z.discriminatedUnion(
  'kind',
  [
    z.strictObject({
      /** A USSD flow: the user dials a code and enters the OTP shown. */
      kind: z.literal('ussd'),
      /** The user's number in E.164. */
      phoneNumber: phoneNumberSchema,
    }),
    z.strictObject({
      /** A phone flow: a code sent by SMS, voice or WhatsApp. */
      kind: z.literal('phone'),
      /** The user's number in E.164. */
      phoneNumber: phoneNumberSchema,
      /** How the code travels, when the flow has one channel. Default `sms`. Not with `channels`. */
      channel: phoneChannelSchema.optional(),
      /**
       * The plan: the channels the code may travel by, in order (`['whatsapp', 'sms', 'voice']`). The first
       * send goes on the first; a resend may switch to any of them; a failed delivery falls back to the next.
       */
      channels: z
        .array(phoneChannelSchema)
        .min(1, { error: 'must name at least one channel' })
        .max(3, { error: 'must name at most 3 channels' })
        .refine((channels) => new Set(channels).size === channels.length, { error: 'must not name a channel twice' })
        .optional(),
      /** The language of the message, a BCP 47 tag (`en`, `fr`, `pt-BR`): the provider's, and the templates'. */
      locale: localeSchema.optional(),
      /** The sender ID or number the code comes from, where the provider lets you choose. */
      from: senderSchema.optional(),
    }),
    z.strictObject({
      /** An identity flow: a code sent to the number registered for a BVN or NIN. */
      kind: z.literal('identity'),
      /** Which identity number `number` is. */
      idType: z.enum(['bvn', 'nin'], { error: 'must be bvn or nin' }),
      /** The BVN or NIN, 11 digits; stored only masked, hashed and sealed, never in clear. */
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
    z.strictObject({
      /** Submits the code the user received. */
      type: z.literal('submit-code'),
      /** The code as typed: checked, never stored. */
      code: codeSchema,
    }),
    z.strictObject({
      /** Sends a code again (phone, identity) once the cooldown has passed. */
      type: z.literal('resend'),
      /** Phone flows: the channel of the plan to send on this time (`voice` for "call me instead"). */
      channel: phoneChannelSchema.optional(),
    }),
    z.strictObject({
      /** Starts a new USSD session once the cooldown has passed. */
      type: z.literal('restart'),
    }),
    z.strictObject({
      /** Ends the flow; nothing can change it after. */
      type: z.literal('cancel'),
    }),
  ],
  { error: 'must be one of submit-code, resend, restart, cancel' },
);

/** What `verikit.send` takes. */
export type UserEvent = z.input<typeof userEventSchema>;

/** A user event after parsing: what a flow definition turns into its machine's event. */
export type ParsedUserEvent = z.output<typeof userEventSchema>;

/** Input of `verikit.sendSms`. `from` falls back to the engine's `defaultSender`, then to the provider's. */
export const sendSmsInputSchema = z.strictObject({
  /** The sender ID or number. */
  from: senderSchema.optional(),
  /** The recipient, in E.164. */
  to: phoneNumberSchema,
  /** The text, 1 to 1,600 characters. */
  message: smsMessageSchema,
});

/** What `verikit.sendSms` takes. */
export type SendSmsInput = z.input<typeof sendSmsInputSchema>;

/** Input of `verikit.sendWhatsApp`. */
export const sendWhatsAppInputSchema = z.strictObject({
  /** The recipient, in E.164. */
  phoneNumber: phoneNumberSchema,
  /** The text, 1 to 4,096 characters. */
  message: whatsAppMessageSchema,
});

/** What `verikit.sendWhatsApp` takes. */
export type SendWhatsAppInput = z.input<typeof sendWhatsAppInputSchema>;

/** Input of `verikit.receive`: an event a provider pushed, after its signature was checked. */
export const providerEventSchema = z.strictObject({
  type: z.literal('ussd-verification', { error: 'must be ussd-verification' }),
  phoneNumber: phoneNumberSchema,
  status: z.enum(['success', 'failed'], { error: 'must be success or failed' }),
});
