/** A message a fake "delivered": what the user's phone would show. Fakes keep codes in clear: they are for tests. */
export interface FakeMessage {
  /** How it travelled: a voice message is the text a call would read out; `ussd` is a session to dial. */
  readonly channel: 'sms' | 'voice' | 'whatsapp' | 'ussd';
  /** The recipient, in E.164. */
  readonly to: string;
  /** The sender ID or number, when the request named one. */
  readonly from?: string;
  /** The text as the user would see it, code included. */
  readonly text: string;
  /** The code in the message, when it carries one. */
  readonly code?: string;
  /** When the fake delivered it (this machine's clock, ms since the epoch). */
  readonly at: number;
}

/**
 * The messages a fake delivered, oldest first, at most `limit` of them. A fake whose messages carry more
 * (the gateway fake's `kind`) names its own message type.
 */
export class FakeOutbox<Message extends FakeMessage = FakeMessage> {
  readonly #messages: Message[] = [];
  readonly #limit: number;
  readonly #listeners = new Set<() => void>();
  // Typed on `never` so that an outbox of a narrower message type stays assignable to FakeOutbox<FakeMessage>.
  readonly #pushListeners = new Set<(message: never) => void>();

  constructor(limit = 1000) {
    this.#limit = limit;
  }

  /** Every message kept, oldest first; the array is live, copy it to keep a snapshot. */
  get messages(): readonly Message[] {
    return this.#messages;
  }

  /** Delivers a message: stamps it with the time, drops the oldest past the limit, and returns it as kept. */
  push(message: Omit<Message, 'at'>): Message {
    const stored = Object.freeze({ ...message, at: Date.now() }) as Message;
    this.#messages.push(stored);
    if (this.#messages.length > this.#limit) this.#messages.splice(0, this.#messages.length - this.#limit);
    for (const listener of this.#pushListeners) (listener as (message: Message) => void)(stored);
    this.#changed();
    return stored;
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
    for (let index = this.#messages.length - 1; index >= 0; index -= 1)
      if (this.#messages[index]!.to === to) return this.#messages[index]!.text;
    return undefined;
  }

  /** Forgets every message, for a fake's `reset()`. */
  clear(): void {
    this.#messages.length = 0;
    this.#changed();
  }

  /**
   * Hears each message as it is delivered, whatever the limit keeps (the carrier simulator counts every one);
   * returns the unsubscribe function. A listener that throws fails the push: it is the caller's own code.
   */
  onPush(listener: (message: Message) => void): () => void {
    this.#pushListeners.add(listener);
    return () => this.#pushListeners.delete(listener);
  }

  /** Hears every delivery and clearing, e.g. for the inbox page; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #changed(): void {
    for (const listener of this.#listeners) {
      try {
        listener();
      } catch {
        // A listener's failure is not the outbox's.
      }
    }
  }
}

/**
 * The code in a free-form message, for a fake whose API takes text rather than a code (an SMS the app wrote):
 * the first run of 4 to 10 digits standing alone. A fake that knows the code (it made it) passes that instead.
 */
export function codeInText(text: string): string | undefined {
  return /(?:^|\D)(\d{4,10})(?:\D|$)/.exec(text)?.[1];
}
