import { z } from 'zod';

const sid = (prefix: string) =>
  z
    .string({ error: 'must be a string' })
    .max(64, { error: `must be ${prefix} and 32 hexadecimal characters`, abort: true })
    .regex(new RegExp(`^${prefix}[0-9a-fA-F]{32}$`), { error: `must be ${prefix} and 32 hexadecimal characters` });

/** Twilio's SIDs: two letters naming the kind, then 32 hexadecimal characters. */
export const accountSidSchema = sid('AC');
export const apiKeySidSchema = sid('SK');
export const verifyServiceSidSchema = sid('VA');
export const messagingServiceSidSchema = sid('MG');
export const contentSidSchema = sid('HX');

/** A status callback URL: http(s), a host, no credentials and no fragment (Twilio signs the URL as configured). */
export const callbackUrlSchema = z
  .string({ error: 'must be a string' })
  .max(2048, { error: 'must be at most 2048 characters', abort: true })
  .refine(
    (value) => {
      try {
        const url = new URL(value);
        return (
          (url.protocol === 'https:' || url.protocol === 'http:') &&
          url.hostname !== '' &&
          url.username === '' &&
          url.password === '' &&
          url.hash === '' &&
          !value.includes('#')
        );
      } catch {
        return false;
      }
    },
    { error: 'must be an http(s) URL with a host, without credentials or fragment' },
  );

/** Our requestId: a Verification SID, then `.n` for the n-th send of a resend (group 1 is the SID). */
export const verificationSidPattern = /^(VE[0-9a-fA-F]{32})(?:\.\d{1,3})?$/;

/** An E.164 number, as verikit passes it and Twilio takes it. */
export const e164Schema = z
  .string({ error: 'must be a string' })
  .max(16, { error: 'must be at most 15 digits after +', abort: true })
  .regex(/^\+/, { error: 'must start with + and the country code', abort: true })
  .regex(/^\+[1-9]\d{6,14}$/, { error: 'must be + and the country code and number, digits only' });

/** An SMS sender on Twilio: an E.164 number, or an alphanumeric sender id (1 to 11 letters, digits or spaces, one letter at least). */
export const twilioSenderSchema = z
  .string({ error: 'must be a string' })
  .max(16, { error: 'must be an E.164 number or 1 to 11 letters, digits or spaces', abort: true })
  .regex(/^(?:\+[1-9]\d{6,14}|(?=[A-Za-z0-9 ]*[A-Za-z])[A-Za-z0-9][A-Za-z0-9 ]{0,10})$/, {
    error: 'must be an E.164 number or 1 to 11 letters, digits or spaces with at least one letter',
  });

/** A BCP 47 language tag as Verify takes it in `Locale`. */
export const localeSchema = z
  .string({ error: 'must be a string' })
  .max(16, { error: 'must be a language tag such as en or pt-BR', abort: true })
  .regex(/^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})?$/, { error: 'must be a language tag such as en or pt-BR' });

/** The `whatsapp:` address Programmable Messaging takes for a WhatsApp number. */
export function whatsappAddress(e164: string): string {
  return `whatsapp:${e164}`;
}
