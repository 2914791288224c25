/** Options of {@link FakeInboxLog}. */
export interface FakeInboxLogOptions {
  /** Entries kept; the oldest are dropped past it. Default 1000. */
  readonly limit?: number;
  /** Called on each entry added and each {@link FakeInboxLog.changed}: the inbox page follows it. */
  readonly onChange?: () => void;
}

/**
 * What a fake keeps for its inbox page beside its outbox (the webhooks or callbacks it sent, the USSD sessions
 * dialled), oldest dropped past a limit. An entry may be updated in place (an attempt added, a session ended):
 * call `changed()` after, so the page updates.
 */
export class FakeInboxLog<Entry> {
  readonly #entries: Entry[] = [];
  readonly #limit: number;
  readonly #onChange: (() => void) | undefined;

  constructor(options: FakeInboxLogOptions = {}) {
    this.#limit = options.limit ?? 1000;
    this.#onChange = options.onChange;
  }

  /** Keeps `entry`, drops the oldest past the limit, and returns it (to update it in place later). */
  add(entry: Entry): Entry {
    this.#entries.push(entry);
    if (this.#entries.length > this.#limit) this.#entries.splice(0, this.#entries.length - this.#limit);
    this.changed();
    return entry;
  }

  /** Tells the page an entry changed in place. */
  changed(): void {
    this.#onChange?.();
  }

  /** Every entry kept, newest first (a copy). */
  get entries(): readonly Entry[] {
    return this.#entries.toReversed();
  }

  /** Forgets every entry, for a fake's `reset()`. */
  clear(): void {
    this.#entries.length = 0;
    this.changed();
  }
}
