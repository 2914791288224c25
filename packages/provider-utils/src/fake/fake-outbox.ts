/** A message a fake "delivered": what the user's phone would show. Fakes keep codes in clear: they are for tests. */
export interface FakeMessage {
  readonly channel: 'sms' | 'voice' | 'whatsapp';
  readonly to: string;
  readonly from?: string;
  readonly text: string;
  /** The code in the message, when it carries one. */
  readonly code?: string;
  readonly at: number;
}

/** The messages a fake delivered, oldest first, at most `limit` of them. */
export class FakeOutbox {
  readonly #messages: FakeMessage[] = [];
  readonly #limit: number;

  constructor(limit = 1000) {
    this.#limit = limit;
  }

  get messages(): readonly FakeMessage[] {
    return this.#messages;
  }

  push(message: Omit<FakeMessage, 'at'>): void {
    this.#messages.push({ ...message, at: Date.now() });
    if (this.#messages.length > this.#limit) this.#messages.splice(0, this.#messages.length - this.#limit);
  }

  /** The code of the last message to `to` that carried one. */
  lastCode(to: string): string | undefined {
    for (let index = this.#messages.length - 1; index >= 0; index -= 1) {
      const message = this.#messages[index]!;
      if (message.to === to && message.code !== undefined) return message.code;
    }
    return undefined;
  }

  /** The text of the last message to `to`. */
  lastText(to: string): string | undefined {
    for (let index = this.#messages.length - 1; index >= 0; index -= 1) if (this.#messages[index]!.to === to) return this.#messages[index]!.text;
    return undefined;
  }

  clear(): void {
    this.#messages.length = 0;
  }
}
