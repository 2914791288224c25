/** One dispatched server-sent event. */
export interface ServerSentEvent {
  /** The event type: `message` unless the server named one. */
  readonly event: string;
  /** The `data` lines joined with LF: for verikit streams, a JSON view. */
  readonly data: string;
  /** The last event id the stream set, as the HTML spec defines it (it carries over to later events). */
  readonly id: string;
}

/** What the parser reports as it reads. */
export interface EventStreamHandlers {
  /** Called once per event, at the blank line that ends it. */
  onEvent(event: ServerSentEvent): void;
  /** A `retry:` field: the reconnection delay the server asks for, in ms. */
  onRetry?(ms: number): void;
}

/** The longest line or event taken, in characters: a hostile or broken stream must not grow memory without end. */
const maxBufferedChars = 1024 * 1024;

/**
 * An incremental `text/event-stream` parser following the HTML spec's interpretation rules: lines
 * end in CRLF, LF or CR (a CR at the end of one chunk and an LF at the start of the next are one
 * line end); a leading BOM is dropped; `:` lines are comments (heartbeats); `data` lines join with
 * LF; an `id` containing NUL is ignored; `retry` takes digits only; an event is dispatched at a
 * blank line, and one left unfinished when the stream ends is discarded. Throws a RangeError when a
 * line or an event exceeds 1 MiB.
 */
export class EventStreamParser {
  readonly #handlers: EventStreamHandlers;
  #buffer = '';
  #started = false;
  #afterCR = false;
  #event = '';
  #data: string[] = [];
  #dataChars = 0;
  #id = '';

  constructor(handlers: EventStreamHandlers, lastEventId = '') {
    this.#handlers = handlers;
    this.#id = lastEventId;
  }

  /** Feeds decoded text. */
  push(text: string): void {
    if (!this.#started && text.length > 0) {
      this.#started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let start = 0;
    if (this.#afterCR && text.startsWith('\n')) start = 1;
    this.#afterCR = false;
    for (let index = start; index < text.length; index += 1) {
      const char = text.charCodeAt(index);
      if (char !== 0x0a && char !== 0x0d) continue;
      this.#line(this.#buffer + text.slice(start, index));
      this.#buffer = '';
      if (char === 0x0d) {
        if (index + 1 === text.length) this.#afterCR = true;
        else if (text.charCodeAt(index + 1) === 0x0a) index += 1;
      }
      start = index + 1;
    }
    this.#buffer += text.slice(start);
    if (this.#buffer.length > maxBufferedChars) throw new RangeError('server-sent event line too long');
  }

  #line(line: string): void {
    if (line === '') {
      this.#dispatch();
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.#event = value;
        return;
      case 'data':
        this.#dataChars += value.length + 1;
        if (this.#dataChars > maxBufferedChars) throw new RangeError('server-sent event too long');
        this.#data.push(value);
        return;
      case 'id':
        if (!value.includes('\u0000')) this.#id = value;
        return;
      case 'retry':
        if (/^\d+$/.test(value)) this.#handlers.onRetry?.(Number(value));
        return;
      default:
        return;
    }
  }

  #dispatch(): void {
    const data = this.#data;
    const event = this.#event;
    this.#data = [];
    this.#dataChars = 0;
    this.#event = '';
    if (data.length === 0) return;
    this.#handlers.onEvent({ event: event === '' ? 'message' : event, data: data.join('\n'), id: this.#id });
  }
}
