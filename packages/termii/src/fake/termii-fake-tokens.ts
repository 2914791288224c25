import { randomInt, randomUUID } from 'node:crypto';

interface Token {
  readonly to: string;
  readonly pin: string;
  attemptsLeft: number;
  readonly expiresAt: number;
}

/** What Verify Token answers, as the fake reads Termii's reference. */
export type TokenCheck =
  | { found: false }
  | { found: true; to: string; verified: true | false | 'Expired' | 'Attempts Exceeded' };

/** The fake's token store: codes it sent, by pin id; a verified or spent code is forgotten. */
export class TermiiFakeTokens {
  readonly #tokens = new Map<string, Token>();

  /** Makes a code of `length` digits for `to`, valid `ttlMinutes` and `attempts` checks; returns its pin id. */
  issue(to: string, length: number, attempts: number, ttlMinutes: number): { pinId: string; pin: string } {
    const pin = Array.from({ length }, () => String(randomInt(10))).join('');
    const pinId = randomUUID();
    this.#tokens.set(pinId, { to, pin, attemptsLeft: attempts, expiresAt: Date.now() + ttlMinutes * 60_000 });
    return { pinId, pin };
  }

  check(pinId: string, pin: string): TokenCheck {
    const token = this.#tokens.get(pinId);
    if (token === undefined) return { found: false };
    if (Date.now() > token.expiresAt) {
      this.#tokens.delete(pinId);
      return { found: true, to: token.to, verified: 'Expired' };
    }
    if (token.pin === pin) {
      this.#tokens.delete(pinId);
      return { found: true, to: token.to, verified: true };
    }
    token.attemptsLeft -= 1;
    if (token.attemptsLeft <= 0) {
      this.#tokens.delete(pinId);
      return { found: true, to: token.to, verified: 'Attempts Exceeded' };
    }
    return { found: true, to: token.to, verified: false };
  }

  clear(): void {
    this.#tokens.clear();
  }
}
