import { smsMessageSchema, whatsAppMessageSchema } from '@verikit/provider';
import { z } from 'zod';
import { e164Schema, localeSchema, twilioSenderSchema } from './twilio-format.js';

/** What the Twilio provider accepts, checked before anything is sent. Unknown fields are refused. */
export const phoneSendSchema = z.strictObject({
  phoneNumber: e164Schema,
  from: z.string().max(64).optional(),
  channel: z.enum(['sms', 'voice', 'whatsapp'], { error: 'must be sms, voice or whatsapp' }),
  code: z
    .string({ error: 'must be a string of digits' })
    .max(64, { error: 'must be 4 to 10 digits', abort: true })
    .regex(/^\d{4,10}$/, { error: 'must be 4 to 10 digits' })
    .optional(),
  locale: localeSchema.optional(),
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
  from: twilioSenderSchema.optional(),
  to: e164Schema,
  message: smsMessageSchema,
});

export const whatsAppSendSchema = z.strictObject({ phoneNumber: e164Schema, message: whatsAppMessageSchema });
