import { VerikitError, type VerikitErrorOptions } from '@verikit/provider';

/** No flow has this id: it never existed, or its record expired and was removed. */
export class FlowNotFoundError extends VerikitError {
  /** The id looked for; a flow id is no secret. */
  readonly flowId: string;

  constructor(flowId: string, options: VerikitErrorOptions = {}) {
    super('flow_not_found', 'flow not found', { field: 'flowId', ...options });
    this.name = 'FlowNotFoundError';
    this.flowId = flowId;
  }

  static override isInstance(error: unknown): error is FlowNotFoundError {
    return VerikitError.isInstance(error) && error.code === 'flow_not_found';
  }
}
