/** What an identity start claims about its person, and the steps of its ladder: not on a phone start's path. */
import { z } from 'zod';

/** A step of an identity ladder. */
export const identityStepSchema = z.literal(['match', 'consent', 'otp', 'face'], {
  error: 'must be match, consent, otp or face',
});

/** A name as the user typed it: letters, spaces, apostrophes, dots and dashes, 1 to 64 characters. */
const nameSchema = z
  .string({ error: 'must be a string' })
  .max(64, { error: 'must be at most 64 characters', abort: true })
  .regex(/^[\p{L}][\p{L}\p{M} .'’-]*$/u, { error: 'must be letters, spaces, apostrophes, dots or dashes' });

/** A date of birth, `YYYY-MM-DD`, a real day between 1900 and today. */
const dateOfBirthSchema = z
  .string({ error: 'must be a date YYYY-MM-DD' })
  .max(10, { error: 'must be a date YYYY-MM-DD', abort: true })
  .regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'must be a date YYYY-MM-DD', abort: true })
  .refine(
    (value) => {
      const date = new Date(`${value}T00:00:00Z`);
      return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value) && value >= '1900-01-01';
    },
    { error: 'must be a real date from 1900-01-01' },
  );

/**
 * The claims of a match step, the number read by `phoneNumberSchema`: at least one of them. Errors name the field and
 * never repeat the value.
 */
export function claimsSchemaFor(phoneNumberSchema: z.ZodType<string, unknown>) {
  return z
    .strictObject({
      /** The first (given) name. */
      firstName: nameSchema.optional(),
      /** The last name (surname). */
      lastName: nameSchema.optional(),
      /** The date of birth, `YYYY-MM-DD`. */
      dateOfBirth: dateOfBirthSchema.optional(),
      /** The phone number: E.164, or as typed (parsed into E.164). */
      phoneNumber: phoneNumberSchema.optional(),
    })
    .refine((claims) => Object.values(claims).some((value) => value !== undefined), {
      error: 'must claim at least one of firstName, lastName, dateOfBirth, phoneNumber',
    });
}
