import { senderSchema } from '@verikit/provider';
import { z } from 'zod';

/**
 * Light checks of what the provider is given, before anything is sent. The engine validates fully
 * (libphonenumber-js) before it calls a provider; these catch direct misuse cheaply.
 */
const e164 = z
  .string({ error: 'must be a string' })
  .max(16, { error: 'must be at most 15 digits after +', abort: true })
  .regex(/^\+[1-9]\d{6,14}$/, { error: 'must be + and the country code and number, digits only' });

const text = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .max(max, { error: `must be at most ${max} characters`, abort: true })
    .refine((value) => value.trim().length > 0, { error: 'must not be empty' });

/** An OTP as a string of digits, or an integer turned into one (spec §4.3 says both). */
const otp = z.union([
  z.string({ error: 'must be a string of 4 to 10 digits' }).max(64, { error: 'must be 4 to 10 digits', abort: true }).regex(/^\d{4,10}$/, { error: 'must be 4 to 10 digits' }),
  z
    .number({ error: 'must be a string of 4 to 10 digits' })
    .int({ error: 'must be a string of 4 to 10 digits' })
    .min(1000, { error: 'must be 4 to 10 digits' })
    .max(9_999_999_999, { error: 'must be 4 to 10 digits' })
    .transform((value) => String(value)),
], { error: 'must be a string of 4 to 10 digits' });

export const ussdInitiateSchema = z.object({ phoneNumber: e164 });
export const phoneSendSchema = z.object({
  phoneNumber: e164,
  from: senderSchema.optional(),
  channel: z.enum(['sms', 'voice'], { error: 'must be sms or voice' }),
});
export const phoneCheckSchema = z.object({
  requestId: z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' }).max(256, { error: 'must be at most 256 characters' }),
  code: z.string({ error: 'must be a string of digits' }).max(64, { error: 'must be 4 to 10 digits', abort: true }).regex(/^\d{4,10}$/, { error: 'must be 4 to 10 digits' }),
});
export const identitySendOtpSchema = z.object({
  idType: z.enum(['bvn', 'nin'], { error: 'must be bvn or nin' }),
  number: z.string({ error: 'must be a string of digits' }).max(64, { error: 'is not a valid identity number', abort: true }),
  otp,
});
export const smsSendSchema = z.object({ from: senderSchema.optional(), to: e164, message: text(1600) });
export const whatsAppSendSchema = z.object({ phoneNumber: e164, message: text(4096) });
