import { VerikitError, type VerikitErrorOptions } from '@verikit/provider';

/** A stored record was written by an incompatible version of verikit, or is corrupt. */
export class RecordSchemaError extends VerikitError {
  constructor(message: string, options: VerikitErrorOptions = {}) {
    super('record_schema', message, options);
    this.name = 'RecordSchemaError';
  }

  static override isInstance(error: unknown): error is RecordSchemaError {
    return VerikitError.isInstance(error) && error.code === 'record_schema';
  }
}
