import { phoneNumberSchema, smsMessageSchema } from '@verikit/provider';
import { z } from 'zod';
import { africasTalkingSenderSchema } from './africastalking-format.js';

/** What `sms.send` accepts, checked before anything is sent. Unknown fields are refused. */
export const smsSendSchema = z.strictObject({
  from: africasTalkingSenderSchema.optional(),
  to: phoneNumberSchema,
  message: smsMessageSchema,
});
