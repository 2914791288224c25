import { randomInt, randomUUID } from 'node:crypto';
import type { FakeOutbox } from '@verikit/provider-utils/fake';
import type { GatewayOperation } from '../endpoints.js';
import type { GatewayWebhookBody } from '../webhook-parser.js';
import type { GatewayFakeMessage } from './gateway-fake-outbox.js';
import type { TestIdentity } from './test-identities.js';
import type { WebhookDelivery, WebhookSender } from './webhook-sender.js';

/** What an operation answers: success or the failure envelope, an HTTP status and the `data` field. */
export interface ServiceOutcome {
  readonly ok: boolean;
  readonly status: number;
  readonly data: Record<string, unknown> | null;
  /**
   * Fields the sandbox adds beside the envelope's own (the service never sends them): `sandbox.verification:
   * 'locked'` and its `maxAttempts` when a check is refused because the wrong codes are used up.
   */
  readonly extra?: Record<string, unknown>;
}

/** A phone verification the fake is holding. */
export interface PhoneVerification {
  readonly requestId: string;
  readonly phoneNumber: string;
  readonly code: string;
  readonly expiresAt: number;
  attemptsLeft: number;
  status: 'pending' | 'verified' | 'locked';
}

/** A USSD session: the OTP and code the user must dial. */
export interface UssdSession {
  readonly reference: string;
  readonly phoneNumber: string;
  readonly otp: string;
  readonly ussdCode: string;
  readonly expiresAt: number;
  status: 'pending' | 'success' | 'failed';
}

/** What the fake's service works with. */
export interface GatewayFakeServiceOptions {
  readonly outbox: FakeOutbox<GatewayFakeMessage>;
  readonly webhooks: WebhookSender;
  readonly identities: readonly TestIdentity[];
  readonly codeTtlMs: number;
  readonly maxAttempts: number;
  /** Called when a USSD session is dialled: the inbox page follows it. */
  readonly onChange?: () => void;
}

const ok = (data: Record<string, unknown> | null = null): ServiceOutcome => ({ ok: true, status: 200, data });
const refused = (status = 200): ServiceOutcome => ({ ok: false, status, data: null });
const digits = (length: number) => String(randomInt(0, 10 ** length)).padStart(length, '0');
const maxHeld = 100_000;

/** The service's behaviour, without HTTP: codes, sessions, identities, the outbox and webhooks. */
export class GatewayFakeService {
  readonly #options: GatewayFakeServiceOptions;
  readonly phoneVerifications = new Map<string, PhoneVerification>();
  readonly ussdSessions = new Map<string, UssdSession>();

  #sequence = 0;

  constructor(options: GatewayFakeServiceOptions) {
    this.#options = options;
  }

  /** Delivers a message to the outbox, with an id of its own. */
  #deliver(message: Omit<GatewayFakeMessage, 'id' | 'at'>): void {
    this.#options.outbox.push({ ...message, id: `msg-${++this.#sequence}` });
  }

  /** Runs one operation on a validated body. */
  handle(operation: GatewayOperation, body: Record<string, unknown>): ServiceOutcome {
    switch (operation) {
      case 'sms.send':
        this.#deliver({
          kind: 'sms',
          channel: 'sms',
          to: body['to'] as string,
          from: body['from'] as string,
          text: body['message'] as string,
        });
        return ok();
      case 'whatsapp.send':
        this.#deliver({
          kind: 'whatsapp',
          channel: 'whatsapp',
          to: body['phoneNumber'] as string,
          text: body['message'] as string,
        });
        return ok();
      case 'identity.bvn':
      case 'identity.nin': {
        const idType = operation === 'identity.bvn' ? 'bvn' : 'nin';
        const identity = this.#options.identities.find(
          (each) => each.idType === idType && each.number === body['number'],
        );
        if (identity === undefined) return refused();
        const otp = body['otp'] as string;
        this.#deliver({
          kind: 'identity-otp',
          channel: 'sms',
          to: identity.phoneNumber,
          text: `Your ${idType.toUpperCase()} verification code is ${otp}`,
          code: otp,
          idType,
        });
        return ok();
      }
      case 'phone.send':
        return this.#phoneSend(
          body['phoneNumber'] as string,
          body['from'] as string,
          (body['channel'] as 'sms' | 'voice' | undefined) ?? 'sms',
        );
      case 'phone.check':
        return this.#phoneCheck(body['requestId'] as string, body['code'] as string);
      case 'ussd.initiate':
        return this.#ussdInitiate(body['phoneNumber'] as string);
    }
  }

  #phoneSend(phoneNumber: string, from: string, channel: 'sms' | 'voice'): ServiceOutcome {
    this.#prune(this.phoneVerifications);
    const requestId = randomUUID();
    const code = digits(6);
    this.phoneVerifications.set(requestId, {
      requestId,
      phoneNumber,
      code,
      expiresAt: Date.now() + this.#options.codeTtlMs,
      attemptsLeft: this.#options.maxAttempts,
      status: 'pending',
    });
    const text =
      channel === 'voice'
        ? `(voice call) Your verification code is ${code.split('').join(' ')}`
        : `Your verification code is ${code}`;
    this.#deliver({ kind: 'phone-code', channel, to: phoneNumber, from, text, code });
    return ok({ requestId });
  }

  #phoneCheck(requestId: string, code: string): ServiceOutcome {
    const verification = this.phoneVerifications.get(requestId);
    if (verification === undefined) return refused(404);
    // Locked (now or before): the sandbox says so beside the service's envelope, so the engine locks the flow
    // rather than read "wrong code" where its own limit is higher (decision 1410).
    const locked = (): ServiceOutcome => ({
      ...refused(),
      extra: { sandbox: { verification: 'locked', maxAttempts: this.#options.maxAttempts } },
    });
    if (verification.status === 'locked') return locked();
    if (verification.status !== 'pending' || verification.expiresAt <= Date.now()) return refused();
    if (verification.code !== code) {
      verification.attemptsLeft -= 1;
      if (verification.attemptsLeft > 0) return refused();
      verification.status = 'locked';
      return locked();
    }
    verification.status = 'verified';
    return ok();
  }

  #ussdInitiate(phoneNumber: string): ServiceOutcome {
    this.#prune(this.ussdSessions);
    const session: UssdSession = {
      reference: randomUUID(),
      phoneNumber,
      otp: digits(4),
      ussdCode: `*384*${digits(4)}#`,
      expiresAt: Date.now() + this.#options.codeTtlMs,
      status: 'pending',
    };
    this.ussdSessions.set(phoneNumber, session);
    this.#deliver({
      kind: 'ussd',
      channel: 'ussd',
      to: phoneNumber,
      text: `Dial ${session.ussdCode} and enter ${session.otp}`,
      code: session.otp,
    });
    return ok({ otp: session.otp, ussdCode: session.ussdCode, reference: session.reference });
  }

  /**
   * Acts as the user who dials the USSD code: with `otp`, success when it matches the session's OTP;
   * with `status`, that outcome. Sends the signed USSD_VERIFICATION webhook and resolves with its
   * delivery; `undefined` when the number has no pending session (and `status` was not forced).
   */
  dialUssd(input: {
    phoneNumber: string;
    otp?: string;
    status?: 'success' | 'failed';
  }): Promise<WebhookDelivery> | undefined {
    const session = this.ussdSessions.get(input.phoneNumber);
    let status = input.status;
    if (status === undefined) {
      if (session === undefined || session.status !== 'pending' || session.expiresAt <= Date.now()) return undefined;
      status = input.otp === session.otp ? 'success' : 'failed';
    }
    if (session !== undefined && session.status === 'pending') session.status = status;
    this.#options.onChange?.();
    // The body the gateway provider reads (its type is the gateway's), plus what a service would add.
    const body: GatewayWebhookBody = { event: 'USSD_VERIFICATION', phoneNumber: input.phoneNumber, status };
    return this.#options.webhooks.send({
      ...body,
      ...(session === undefined ? {} : { reference: session.reference }),
      timestamp: new Date().toISOString(),
    });
  }

  /** Forgets every session and verification. */
  reset(): void {
    this.phoneVerifications.clear();
    this.ussdSessions.clear();
  }

  #prune<T extends { expiresAt: number }>(map: Map<string, T>): void {
    if (map.size < maxHeld) return;
    const now = Date.now();
    for (const [key, value] of map) if (value.expiresAt <= now) map.delete(key);
    while (map.size >= maxHeld) map.delete(map.keys().next().value!);
  }
}
