import { z } from 'zod';

/** The placeholder Termii replaces with the code in `message_text`. */
export const pinPlaceholder = '< 1234 >';

/** E.164 (as verikit passes numbers) to Termii's number format (its "international format"): the digits, without `+`. */
export function toTermiiNumber(e164: string): string {
  return e164.slice(1);
}

/**
 * Termii's sender id rules (send-token and messaging references): an alphanumeric sender of 3 to 11
 * characters, or a numeric sender (a phone number's digits). Checked before sending, so a sender Termii
 * would refuse never costs a request.
 */
export const termiiSenderSchema = z
  .string({ error: 'must be a string' })
  .max(16, { error: 'must be 3 to 11 letters or digits, or a numeric sender of at most 15 digits', abort: true })
  .regex(/^(?:[A-Za-z0-9]{3,11}|\+?\d{3,15})$/, {
    error: 'must be 3 to 11 letters or digits, or a numeric sender of at most 15 digits',
  })
  .transform((value) => value.replace(/^\+/, ''));

/** A WhatsApp device name as Termii's messaging API takes it in `from`. */
export const whatsappFromSchema = z
  .string({ error: 'must be a string' })
  .max(64, { error: 'must be 1 to 64 characters', abort: true })
  .regex(/^[\w .-]{1,64}$/, { error: 'must be 1 to 64 letters, digits, spaces, dots, dashes or underscores' });
