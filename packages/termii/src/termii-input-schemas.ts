import { smsMessageSchema, whatsAppMessageSchema } from '@verikit/provider';
import { z } from 'zod';
import { e164Schema, termiiSenderSchema } from './termii-format.js';

/**
 * What the Termii provider accepts, checked before anything is sent. Unknown fields are refused except
 * the spec's optional ones (`locale`, `resendOf`), which Termii has no use for.
 */
export const phoneSendSchema = z.strictObject({
  phoneNumber: e164Schema,
  from: termiiSenderSchema.optional(),
  channel: z.enum(['sms', 'voice', 'whatsapp'], { error: 'must be sms, voice or whatsapp' }),
  locale: z.string().max(35).optional(),
  resendOf: z.string().max(512).optional(),
});

export const phoneCheckSchema = z.strictObject({
  requestId: z
    .string({ error: 'must be a string' })
    .min(1, { error: 'must not be empty' })
    .max(256, { error: 'must be at most 256 characters' }),
  code: z
    .string({ error: 'must be a string of digits' })
    .max(64, { error: 'must be 4 to 10 digits', abort: true })
    .regex(/^\d{4,10}$/, { error: 'must be 4 to 10 digits' }),
});

export const smsSendSchema = z.strictObject({
  from: termiiSenderSchema.optional(),
  to: e164Schema,
  message: smsMessageSchema,
});

export const whatsAppSendSchema = z.strictObject({ phoneNumber: e164Schema, message: whatsAppMessageSchema });
