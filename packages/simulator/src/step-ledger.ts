/**
 * Double sends, counted from what the fakes handed on: per handset, the codes since its last step (a start, a resend
 * asked for, an `undelivered` receipt handed to the engine). A second code for one step is a double send, whatever the
 * engine's own counters say.
 */
export class StepLedger {
  readonly #codes = new Map<string, number>();
  #doubles = 0;

  /** Codes beyond the first of a step, so far. */
  get doubleSends(): number {
    return this.#doubles;
  }

  /** A step of `handset`: the next code is its first. */
  step(handset: string): void {
    this.#codes.set(handset, 0);
  }

  /** A code reached `handset`'s provider outbox; true when it is a double send. */
  code(handset: string): boolean {
    const codes = (this.#codes.get(handset) ?? 0) + 1;
    this.#codes.set(handset, codes);
    if (codes > 1) this.#doubles += 1;
    return codes > 1;
  }
}
