import { randomBytes, randomInt } from 'node:crypto';

interface Verification {
  readonly sid: string;
  readonly to: string;
  channel: string;
  readonly code: string;
  sends: number;
  checksLeft: number;
  readonly expiresAt: number;
}

/** What a check finds, as Verify answers it. */
export type VerificationCheckOutcome =
  | { kind: 'not-found' }
  | { kind: 'max-checks' }
  | { kind: 'checked'; sid: string; to: string; channel: string; approved: boolean };

/** A new SID: two letters and 32 hexadecimal characters. */
export function newSid(prefix: string): string {
  return prefix + randomBytes(16).toString('hex');
}

/**
 * The fake's Verify state, per Twilio's Verify reference: one pending verification per number; a new send to
 * a pending number is a resend of it (same SID, same code), at most 5 sends and 5 checks; approved, expired
 * or exhausted verifications are gone (a check then answers 404).
 */
export class TwilioFakeVerifications {
  readonly #byTo = new Map<string, Verification>();
  readonly #bySid = new Map<string, Verification>();

  /** Starts or resends; `undefined` when the number's send attempts are used up (error 60203). */
  send(to: string, channel: string, customCode: string | undefined): Verification | undefined {
    const existing = this.#byTo.get(to);
    if (existing !== undefined && Date.now() <= existing.expiresAt && customCode === undefined) {
      if (existing.sends >= 5) return undefined;
      existing.sends += 1;
      existing.channel = channel;
      return existing;
    }
    if (existing !== undefined) this.#forget(existing);
    const code = customCode ?? String(randomInt(0, 1_000_000)).padStart(6, '0');
    const verification: Verification = {
      sid: newSid('VE'),
      to,
      channel,
      code,
      sends: 1,
      checksLeft: 5,
      expiresAt: Date.now() + 10 * 60_000,
    };
    this.#byTo.set(to, verification);
    this.#bySid.set(verification.sid, verification);
    return verification;
  }

  check(by: { sid?: string; to?: string }, code: string): VerificationCheckOutcome {
    const verification =
      by.sid !== undefined ? this.#bySid.get(by.sid) : by.to !== undefined ? this.#byTo.get(by.to) : undefined;
    if (verification === undefined) return { kind: 'not-found' };
    if (Date.now() > verification.expiresAt) {
      this.#forget(verification);
      return { kind: 'not-found' };
    }
    if (verification.checksLeft <= 0) return { kind: 'max-checks' };
    const approved = verification.code === code;
    if (approved) this.#forget(verification);
    else verification.checksLeft -= 1;
    return { kind: 'checked', sid: verification.sid, to: verification.to, channel: verification.channel, approved };
  }

  clear(): void {
    this.#byTo.clear();
    this.#bySid.clear();
  }

  #forget(verification: Verification): void {
    this.#byTo.delete(verification.to);
    this.#bySid.delete(verification.sid);
  }
}
