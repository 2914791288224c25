import { VerikitError } from './verikit-error.js';

/** One problem found in an input, with the field it concerns. */
export interface InputIssue {
  /** The field at fault, as a dotted path (`phoneNumber`, `event.code`). */
  field: string;
  /** What is wrong with it; never echoes the value. */
  message: string;
  /** The key a UI translates, where the problem has its own (`verikit.error.phone_number.too_short`). */
  messageId?: string;
}

/**
 * An input was malformed: a phone number without `+`, a 10-digit BVN, a code with letters, an
 * unknown flow kind. `field` names the first offending field; `issues` lists them all.
 * Values are never echoed back, since they may be identity numbers or codes.
 */
export class InvalidInputError extends VerikitError {
  /** Every problem found, so a form can mark all its fields at once. */
  readonly issues: readonly InputIssue[];
  /** The first issue's own message id, where it has one; else a UI uses the code's (`verikit.error.invalid_input`). */
  readonly messageId: string | undefined;

  constructor(issues: readonly InputIssue[], options: { cause?: unknown } = {}) {
    const first = issues[0] ?? { field: 'input', message: 'is invalid' };
    super('invalid_input', `${first.field} ${first.message}`, { field: first.field, ...options });
    this.name = 'InvalidInputError';
    this.issues = issues;
    this.messageId = first.messageId;
  }

  static override isInstance(error: unknown): error is InvalidInputError {
    return VerikitError.isInstance(error) && error.code === 'invalid_input';
  }
}
