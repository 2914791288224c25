import { VerikitError, type VerikitErrorOptions } from '@verikit/provider';

/** The flow exists but is not verified (yet, or ever): there is nothing to tell the backend or to prove. */
export class FlowNotVerifiedError extends VerikitError {
  /** The flow asked about. */
  readonly flowId: string;
  /** Its status now, e.g. `awaiting-code` or `failed`. */
  readonly status: string;

  constructor(flowId: string, status: string, options: VerikitErrorOptions = {}) {
    super('flow_not_verified', `the flow is ${status}, not verified`, { field: 'flowId', ...options });
    this.name = 'FlowNotVerifiedError';
    this.flowId = flowId;
    this.status = status;
  }

  static override isInstance(error: unknown): error is FlowNotVerifiedError {
    return VerikitError.isInstance(error) && error.code === 'flow_not_verified';
  }
}
