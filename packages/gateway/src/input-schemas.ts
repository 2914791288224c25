import {
  codeSchema,
  phoneNumberSchema,
  senderSchema,
  smsSendInputSchema,
  whatsAppSendInputSchema,
} from '@verikit/provider';
import { z } from 'zod';

/**
 * What the provider is given, checked before anything is sent: the provider spec's own field rules
 * (`@verikit/provider`), so a direct caller meets the same rules as the engine's callers. Only what the
 * service adds is defined here: the OTP of a BVN/NIN may be an integer (docs/service.md), and a requestId.
 */

/** An OTP as a string of digits, or an integer turned into one (the service says both: docs/service.md). */
const otp = z.union(
  [
    z
      .string({ error: 'must be a string of 4 to 10 digits' })
      .max(64, { error: 'must be 4 to 10 digits', abort: true })
      .regex(/^\d{4,10}$/, { error: 'must be 4 to 10 digits' }),
    z
      .number({ error: 'must be a string of 4 to 10 digits' })
      .int({ error: 'must be a string of 4 to 10 digits' })
      .min(1000, { error: 'must be 4 to 10 digits' })
      .max(9_999_999_999, { error: 'must be 4 to 10 digits' })
      .transform((value) => String(value)),
  ],
  { error: 'must be a string of 4 to 10 digits' },
);

export const ussdInitiateSchema = z.object({ phoneNumber: phoneNumberSchema });
export const phoneSendSchema = z.object({
  phoneNumber: phoneNumberSchema,
  from: senderSchema.optional(),
  channel: z.enum(['sms', 'voice'], { error: 'must be sms or voice' }),
});
export const phoneCheckSchema = z.object({
  requestId: z
    .string({ error: 'must be a string' })
    .min(1, { error: 'must not be empty' })
    .max(256, { error: 'must be at most 256 characters' }),
  code: codeSchema,
});
export const identitySendOtpSchema = z.object({
  idType: z.enum(['bvn', 'nin'], { error: 'must be bvn or nin' }),
  number: z
    .string({ error: 'must be a string of digits' })
    .max(64, { error: 'is not a valid identity number', abort: true }),
  otp,
});
export { smsSendInputSchema as smsSendSchema, whatsAppSendInputSchema as whatsAppSendSchema };
