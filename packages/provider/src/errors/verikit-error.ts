const marker = Symbol.for('verikit.error');

/** Options shared by every verikit error. */
export interface VerikitErrorOptions {
  /** The input field at fault, as a dotted path (`phoneNumber`, `event.code`), where there is one. */
  field?: string;
  /** True when the same call may succeed if made again later. */
  isRetryable?: boolean;
  /** The underlying error. Never carries a secret: providers convert their errors before wrapping. */
  cause?: unknown;
}

/**
 * The base class of every error verikit throws. Use {@link VerikitError.isInstance} rather than
 * `instanceof`: it works across duplicated package copies and realms.
 *
 * Messages never contain an apiKey, a webhook secret, an OTP, a submitted code or a full BVN/NIN.
 */
export class VerikitError extends Error {
  private readonly [marker] = true;
  /** A stable, machine-readable code such as `invalid_input` or `flow_not_found`. */
  readonly code: string;
  /** The input field at fault, where there is one. */
  readonly field: string | undefined;
  /** True when the same call may succeed if made again later. */
  readonly isRetryable: boolean;

  constructor(code: string, message: string, options: VerikitErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'VerikitError';
    this.code = code;
    this.field = options.field;
    this.isRetryable = options.isRetryable ?? false;
  }

  /** True for any verikit error, including those of another copy of this package. */
  static isInstance(error: unknown): error is VerikitError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[marker] === true;
  }

  /** A plain object safe to log or send to a browser. */
  toJSON(): {
    /** The error class, such as `InvalidInputError`. */
    name: string;
    /** The stable code to branch on. */
    code: string;
    /** For people; never holds a secret, a code or a full identity number. */
    message: string;
    /** The input field at fault, where there is one. */
    field?: string;
    /** True when the same call may succeed if made again later. */
    isRetryable: boolean;
  } {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      ...(this.field === undefined ? {} : { field: this.field }),
      isRetryable: this.isRetryable,
    };
  }
}
