/**
 * The marker the server's `VerikitError.isInstance` looks for (a registered symbol, so it needs no
 * import): an error rebuilt here passes `VerikitError.isInstance`, `InvalidInputError.isInstance` and
 * the other guards in code shared between server and browser (decision 0700).
 */
const verikitMarker = Symbol.for('verikit.error');
const clientMarker = Symbol.for('verikit.client-error');

/** One problem found in an input, with the field it concerns (`invalid_input`). */
export interface FlowClientIssue {
  /** The input field at fault, as a dotted path (`phoneNumber`, `event.code`). */
  readonly field: string;
  /** What is wrong with it, in developer English; never echoes the value. */
  readonly message: string;
  /** The key to translate, when the server sent one (`verikit.error.phone_number.too_short`). */
  readonly messageId?: string;
}

/** What a {@link FlowClientError} is built from. */
export interface FlowClientErrorOptions {
  /** The server's error class name (`InvalidInputError`); defaults to `FlowClientError`. */
  name?: string;
  /** The stable key a product translates; default `verikit.error.<code>`. */
  messageId?: string | undefined;
  /** The input field at fault, where there is one. */
  field?: string | undefined;
  /** True when the same call may succeed if made again later. Default false. */
  isRetryable?: boolean;
  /** The HTTP status answered; 0 when no answer arrived. */
  statusCode?: number;
  /** `invalid_input`: every problem found, each naming its field. */
  issues?: readonly FlowClientIssue[] | undefined;
  /** `event_not_allowed`: the events the flow accepts now. */
  allowed?: readonly string[] | undefined;
  /** `rate_limited`: when the call may succeed (ms since the epoch, server clock). */
  retryAt?: number | undefined;
  /** How long the server asked to wait (`Retry-After`), in ms. */
  retryAfterMs?: number | undefined;
  /** The underlying error, such as the `fetch` failure behind a `network_error`. */
  cause?: unknown;
}

/**
 * Every error the client throws or reports: the server's typed error rebuilt with the same `code`,
 * `field`, `isRetryable` and details, or a client-side one (`network_error` when no answer came,
 * `bad_response` when the answer was not the API's, `invalid_input` for a malformed argument,
 * `aborted` when the caller's signal aborted). Use {@link FlowClientError.isInstance}, not
 * `instanceof`: it works across duplicated package copies.
 */
export class FlowClientError extends Error {
  /** A stable, machine-readable code: `invalid_input`, `event_not_allowed`, `rate_limited`, `flow_not_found`, … */
  readonly code: string;
  /**
   * The stable key a product translates (`verikit.error.flow_not_found`; `formatMessage` and the
   * catalogue in docs/ui.md): the server's, else `verikit.error.<code>` (the client's own errors too).
   */
  readonly messageId: string;
  /** The input field at fault (`phoneNumber`, `event.code`), where there is one. */
  readonly field: string | undefined;
  /** True when the same call may succeed if made again later. */
  readonly isRetryable: boolean;
  /** The HTTP status answered; 0 when no answer arrived. */
  readonly statusCode: number;
  /** `invalid_input`: every problem found, each naming its field. */
  readonly issues: readonly FlowClientIssue[] | undefined;
  /** `event_not_allowed`: the events the flow accepts now. */
  readonly allowed: readonly string[] | undefined;
  /** `rate_limited`: when the call may succeed (ms since the epoch, server clock). */
  readonly retryAt: number | undefined;
  /** How long the server asked to wait before trying again (`Retry-After`), in ms. */
  readonly retryAfterMs: number | undefined;

  constructor(code: string, message: string, options: FlowClientErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    Object.defineProperty(this, verikitMarker, { value: true });
    Object.defineProperty(this, clientMarker, { value: true });
    this.name = options.name ?? 'FlowClientError';
    this.code = code;
    this.messageId = options.messageId ?? `verikit.error.${code}`;
    this.field = options.field;
    this.isRetryable = options.isRetryable ?? false;
    this.statusCode = options.statusCode ?? 0;
    this.issues = options.issues;
    this.allowed = options.allowed;
    this.retryAt = options.retryAt;
    this.retryAfterMs = options.retryAfterMs;
  }

  /** True for any error of this client, including those of another copy of this package. */
  static isInstance(error: unknown): error is FlowClientError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[clientMarker] === true;
  }

  /** The same plain shape the server sends, safe to log. */
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

/** An argument the caller passed is malformed: thrown before any request, naming the field, never echoing the value. */
export function invalidArgument(field: string, message: string): FlowClientError {
  return new FlowClientError('invalid_input', `${field} ${message}`, {
    name: 'InvalidInputError',
    field,
    statusCode: 0,
    issues: [{ field, message }],
  });
}
