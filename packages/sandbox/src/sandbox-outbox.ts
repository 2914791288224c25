/** What a message in the outbox is. */
export type OutboxKind = 'sms' | 'whatsapp' | 'phone-code' | 'identity-otp' | 'ussd';

/** A message the sandbox "delivered": what the user's phone would have received. */
export interface OutboxMessage {
  /** Unique within the sandbox: for the outbox page and logs. */
  readonly id: string;
  /** Which call sent it: a plain message, a phone code, an identity OTP, a USSD session. */
  readonly kind: OutboxKind;
  /** How it would have travelled. */
  readonly channel: 'sms' | 'voice' | 'whatsapp' | 'ussd';
  /** The recipient, in E.164. */
  readonly to: string;
  /** The sender ID or number, when the request named one. */
  readonly from?: string;
  /** The text as the user would see it, code included: the sandbox is for tests. */
  readonly text: string;
  /** The code in the message, when it carries one. */
  readonly code?: string;
  /** For identity OTPs: which identity number type it was sent for. */
  readonly idType?: 'bvn' | 'nin';
  /** When the sandbox "delivered" it (ms since the epoch). */
  readonly at: number;
}

/** A bounded list of delivered messages: the oldest are dropped past `limit`. */
export class SandboxOutbox {
  readonly #messages: OutboxMessage[] = [];
  readonly #limit: number;
  #sequence = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** The messages, oldest first. */
  get messages(): readonly OutboxMessage[] {
    return this.#messages;
  }

  add(message: Omit<OutboxMessage, 'id' | 'at'>): OutboxMessage {
    const stored: OutboxMessage = Object.freeze({ ...message, id: `msg-${++this.#sequence}`, at: Date.now() });
    this.#messages.push(stored);
    if (this.#messages.length > this.#limit) this.#messages.splice(0, this.#messages.length - this.#limit);
    return stored;
  }

  /** Messages to one number, optionally of one kind. */
  to(phoneNumber: string, kind?: OutboxKind): OutboxMessage[] {
    return this.#messages.filter(
      (message) => message.to === phoneNumber && (kind === undefined || message.kind === kind),
    );
  }

  /** The last code delivered to `phoneNumber`. */
  lastCode(phoneNumber: string): string | undefined {
    for (let index = this.#messages.length - 1; index >= 0; index -= 1) {
      const message = this.#messages[index]!;
      if (message.to === phoneNumber && message.code !== undefined) return message.code;
    }
    return undefined;
  }

  clear(): void {
    this.#messages.length = 0;
  }
}
