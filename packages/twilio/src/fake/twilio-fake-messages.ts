import { createHmac } from 'node:crypto';
import type { FakeOutbox } from '@verikit/provider-utils/fake';
import { newSid } from './twilio-fake-verifications.js';

/** What became of a message, as Twilio's Message resource says it. */
type Ending = { status: 'delivered' } | { status: 'failed' | 'undelivered'; code: number; message: string };

/** A Message resource the fake holds (twilio.com/docs/messaging/api/message-resource), to answer a fetch. */
interface FakeMessage {
  readonly sid: string;
  readonly to: string;
  readonly from: string | null;
  readonly service: string | null;
  readonly body: string;
  readonly created: string;
  status: string;
  errorCode: number | null;
  errorMessage: string | null;
  updated: string;
}

/** A status callback the fake sent, and what the endpoint answered (`0`: it could not be reached). */
export interface TwilioFakeStatusCallback {
  /** The message. */
  readonly messageSid: string;
  /** The status the callback reported. */
  readonly status: string;
  /** The HTTP status the endpoint answered, `0` when it could not be reached. */
  readonly answered: number;
}

/** A new message: where it goes, what it says, and what will become of it. */
export interface NewFakeMessage {
  readonly to: string;
  readonly from: string | undefined;
  readonly service: string | undefined;
  readonly body: string;
  readonly statusCallback: string | undefined;
  readonly ending: Ending;
}

const dayMs = 24 * 60 * 60_000;

/** Twilio's form of a time in the Message resource: RFC 2822. */
const twilioTime = (at = new Date()) => at.toUTCString().replace('GMT', '+0000');

/**
 * The fake's Programmable Messaging state, as Twilio documents it: each message is created `queued` (`accepted`
 * with a Messaging Service) and answered at once; its status then changes, and each change after the first is posted
 * to its `StatusCallback`, signed with `X-Twilio-Signature` (sent → delivered or undelivered, or failed), in order
 * (twilio.com/docs/messaging/guides/outbound-message-status-in-status-callbacks, read 2026-11-24: no callback for
 * the initial status). WhatsApp's customer-service window: free-form WhatsApp reaches a user only within 24 hours
 * of their last message to you (`openWhatsAppWindow`); otherwise it is accepted and then fails with 63016.
 */
/** What the fake's messages need: the account, the key its callbacks are signed with, the pace of statuses. */
interface MessagesOptions {
  readonly accountSid: string;
  readonly authToken: string;
  /** When set, callbacks are signed with this SharedKey instead of the auth token. */
  readonly webhookSharedKey?: TwilioFakeWebhookSharedKey | undefined;
  readonly delayMs: () => number;
}

/** A webhook SharedKey of the account (Twilio's Webhooks API, `/v1/SharedKeys`), as the fake signs with it. */
export interface TwilioFakeWebhookSharedKey {
  /** The key's id, named in `X-Twilio-Webhooks-Signature-Settings` (`key=<id>`). */
  readonly id: string;
  /** Its secret: the HMAC key. */
  readonly secret: string;
  /** The HMAC. Default `HMAC_SHA256`. */
  readonly algorithm?: 'HMAC_SHA256' | 'HMAC_SHA1';
}

export class TwilioFakeMessages {
  readonly #messages = new Map<string, FakeMessage>();
  readonly #windows = new Map<string, number>();
  readonly #pending = new Set<Promise<void>>();
  readonly #callbacks: TwilioFakeStatusCallback[] = [];
  readonly #options: MessagesOptions;

  constructor(options: MessagesOptions) {
    this.#options = options;
  }

  /** Every status callback sent so far, oldest first. */
  get callbacks(): readonly TwilioFakeStatusCallback[] {
    return this.#callbacks;
  }

  /** The user of `phoneNumber` wrote to you on WhatsApp at `at`: free-form messages reach them for 24 hours. */
  openWhatsAppWindow(phoneNumber: string, at = Date.now()): void {
    this.#windows.set(phoneNumber, at);
  }

  /** True when free-form WhatsApp reaches `phoneNumber` now. */
  whatsAppWindowOpen(phoneNumber: string, now = Date.now()): boolean {
    const at = this.#windows.get(phoneNumber);
    return at !== undefined && now - at < dayMs;
  }

  /** Creates the message, answers its resource as created, and runs its later statuses and callbacks. */
  create<Delivered extends Parameters<FakeOutbox['push']>[0]>(
    message: NewFakeMessage,
    outbox: { push(message: Delivered): unknown },
    delivered: Delivered,
  ) {
    const now = twilioTime();
    const stored: FakeMessage = {
      sid: newSid('SM'),
      to: message.to,
      from: message.from ?? null,
      service: message.service ?? null,
      body: message.body,
      created: now,
      status: message.service === undefined ? 'queued' : 'accepted',
      errorCode: null,
      errorMessage: null,
      updated: now,
    };
    this.#messages.set(stored.sid, stored);
    if (message.ending.status === 'delivered') outbox.push(delivered);
    const answer = this.resource(stored.sid)!;
    const statuses =
      message.ending.status === 'failed'
        ? ['failed']
        : message.ending.status === 'delivered'
          ? ['sent', 'delivered']
          : ['sent', 'undelivered'];
    if (message.service !== undefined) statuses.unshift('queued');
    const running = this.#run(stored, message, statuses).finally(() => this.#pending.delete(running));
    this.#pending.add(running);
    return answer;
  }

  /** The Message resource as Twilio answers it, or undefined for an unknown SID. */
  resource(sid: string): Record<string, unknown> | undefined {
    const message = this.#messages.get(sid);
    if (message === undefined) return undefined;
    const { accountSid } = this.#options;
    return {
      sid: message.sid,
      account_sid: accountSid,
      to: message.to,
      from: message.from,
      messaging_service_sid: message.service,
      body: message.body,
      status: message.status,
      num_segments: String(Math.max(1, Math.ceil(message.body.length / 160))),
      direction: 'outbound-api',
      api_version: '2010-04-01',
      error_code: message.errorCode,
      error_message: message.errorMessage,
      date_created: message.created,
      date_updated: message.updated,
      date_sent: message.status === 'queued' || message.status === 'accepted' ? null : message.updated,
      uri: `/2010-04-01/Accounts/${accountSid}/Messages/${message.sid}.json`,
    };
  }

  /** Resolves once every status change and callback under way has happened. */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  clear(): void {
    this.#messages.clear();
    this.#windows.clear();
    this.#callbacks.length = 0;
  }

  async #run(stored: FakeMessage, message: NewFakeMessage, statuses: readonly string[]): Promise<void> {
    for (const status of statuses) {
      await new Promise((resolve) => setTimeout(resolve, this.#options.delayMs()));
      stored.status = status;
      stored.updated = twilioTime();
      if (message.ending.status !== 'delivered' && status === message.ending.status) {
        stored.errorCode = message.ending.code;
        stored.errorMessage = message.ending.message;
      }
      if (message.statusCallback !== undefined) await this.#post(message.statusCallback, stored);
    }
  }

  /**
   * One status callback: the form fields Twilio documents, signed as Twilio signs: the HMAC of the URL and the sorted
   * fields, keyed with the auth token (HMAC-SHA1), or with the account's webhook SharedKey when one is set, which
   * `X-Twilio-Webhooks-Signature-Settings` then names with its algorithm (twilio-node 6.3.1 reads it so).
   */
  async #post(url: string, message: FakeMessage): Promise<void> {
    const whatsapp = message.to.startsWith('whatsapp:');
    const fields: Record<string, string> = {
      AccountSid: this.#options.accountSid,
      ApiVersion: '2010-04-01',
      ...(message.from === null ? {} : { From: message.from }),
      To: message.to,
      MessageSid: message.sid,
      SmsSid: message.sid,
      MessageStatus: message.status,
      SmsStatus: message.status,
      ...(message.service === null ? {} : { MessagingServiceSid: message.service }),
      ...(whatsapp ? { ChannelPrefix: 'whatsapp', ChannelToAddress: message.to.slice(9) } : {}),
      ...(message.errorCode === null ? {} : { ErrorCode: String(message.errorCode) }),
    };
    const signed = Object.keys(fields)
      .sort()
      .reduce((text, key) => text + key + fields[key], url);
    const sharedKey = this.#options.webhookSharedKey;
    const algorithm = sharedKey?.algorithm ?? 'HMAC_SHA256';
    const signature = createHmac(
      sharedKey === undefined || algorithm === 'HMAC_SHA1' ? 'sha1' : 'sha256',
      sharedKey?.secret ?? this.#options.authToken,
    )
      .update(signed, 'utf8')
      .digest('base64');
    let answered = 0;
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-twilio-signature': signature,
          ...(sharedKey === undefined
            ? {}
            : { 'x-twilio-webhooks-signature-settings': `key=${sharedKey.id},algorithm=${algorithm}` }),
          'user-agent': 'TwilioProxy/1.1',
        },
        body: new URLSearchParams(fields).toString(),
        signal: AbortSignal.timeout(15_000),
      });
      answered = response.status;
      await response.body?.cancel();
    } catch {
      // Unreachable: recorded as 0. Twilio does not retry a status callback by default.
    }
    this.#callbacks.push({ messageSid: message.sid, status: message.status, answered });
  }
}
