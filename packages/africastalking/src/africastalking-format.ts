import { z } from 'zod';

/**
 * A sender on Africa's Talking (`from`): a registered short code (digits) or an alphanumeric sender id of at
 * most 11 letters, digits or spaces. Checked before sending, so a sender the API would refuse costs no request.
 */
export const africasTalkingSenderSchema = z
  .string({ error: 'must be a string' })
  .max(16, { error: 'must be a short code of 3 to 15 digits or 1 to 11 letters, digits or spaces', abort: true })
  .regex(/^(?:\d{3,15}|(?=[A-Za-z0-9 ]*[A-Za-z])[A-Za-z0-9][A-Za-z0-9 ]{0,10})$/, {
    error: 'must be a short code of 3 to 15 digits or 1 to 11 letters, digits or spaces with at least one letter',
  });

/** An application username: `sandbox`, or the name of a live application (letters, digits, `_`, `-`, `.`). */
export const usernameSchema = z
  .string({ error: 'must be a string' })
  .max(64, { error: 'must be 1 to 64 letters, digits, dots, dashes or underscores', abort: true })
  .regex(/^[A-Za-z0-9_.-]{1,64}$/, { error: 'must be 1 to 64 letters, digits, dots, dashes or underscores' });
