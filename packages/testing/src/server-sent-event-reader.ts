/** One server-sent event: its name (`message` when none was given), its `id` and its `data` lines joined. */
export interface ServerSentEvent {
  /** The `event:` field: `message` when the server named none. */
  readonly event: string;
  /** The `id:` field, when the event had one. */
  readonly id: string | undefined;
  /** The `data:` lines, joined with LF. */
  readonly data: string;
}

/**
 * Reads a `text/event-stream` response block by block, for tests of SSE endpoints: what a browser's
 * EventSource would see, without one.
 *
 * @example
 * const events = new ServerSentEventReader(await fetch(`${url}/flows/${id}/stream`));
 * const first = await events.nextEvent('view'); // { event: 'view', id: '1', data: '{…}' }
 */
export class ServerSentEventReader {
  readonly #reader: ReadableStreamDefaultReader<string>;
  #buffer = '';

  constructor(response: Response) {
    if (response.body === null) throw new TypeError('the response has no body to read events from');
    this.#reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** The next block (an event, a comment or a `retry`), as its raw lines; undefined when the stream ended. */
  async nextBlock(): Promise<string[] | undefined> {
    for (;;) {
      const end = this.#buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        return block.split('\n');
      }
      const { done, value } = await this.#reader.read();
      if (done) return undefined;
      this.#buffer += value;
    }
  }

  /** The next event named `name` (any event when omitted), skipping comments and others; undefined when the stream ended. */
  async nextEvent(name?: string): Promise<ServerSentEvent | undefined> {
    for (;;) {
      const block = await this.nextBlock();
      if (block === undefined) return undefined;
      const fields = block.filter((line) => !line.startsWith(':'));
      if (!fields.some((line) => line.startsWith('data:'))) continue;
      const event =
        fields
          .find((line) => line.startsWith('event:'))
          ?.slice(6)
          .trim() ?? 'message';
      if (name !== undefined && event !== name) continue;
      const id = fields
        .find((line) => line.startsWith('id:'))
        ?.slice(3)
        .trim();
      const data = fields
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      return { event, id, data };
    }
  }

  /** Stops reading: the server sees the client go away. */
  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => undefined);
  }
}
