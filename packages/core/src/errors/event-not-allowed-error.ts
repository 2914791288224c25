import { VerikitError } from '@verikit/provider';

/** The event is not accepted in the flow's current state (a code submitted to a verified flow, a resend during the cooldown). The flow is unchanged; `allowed` lists what it accepts now. */
export class EventNotAllowedError extends VerikitError {
  /** The event refused (`submit-code`, `resend`, …). */
  readonly eventType: string;
  /** The flow's status when it refused the event. */
  readonly status: string;
  /** The events the flow accepts now: what a UI may offer instead. */
  readonly allowed: readonly string[];

  constructor(eventType: string, status: string, allowed: readonly string[], reason?: string) {
    super(
      'event_not_allowed',
      `${eventType} is not allowed while the flow is ${status}${reason ? `: ${reason}` : ''}`,
      { field: 'event.type' },
    );
    this.name = 'EventNotAllowedError';
    this.eventType = eventType;
    this.status = status;
    this.allowed = allowed;
  }

  static override isInstance(error: unknown): error is EventNotAllowedError {
    return VerikitError.isInstance(error) && error.code === 'event_not_allowed';
  }
}
