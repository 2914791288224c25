import { randomInt, randomUUID } from 'node:crypto';

interface Token {
  readonly to: string;
  readonly pin: string;
  attemptsLeft: number;
  readonly expiresAt: number;
}

/**
 * What Verify Token answers: Termii documents `verified` as the string `"True"` and a token as "either
 * verified or expired"; the fake answers `"False"` for a wrong code and `"Expired"` for a code past its time
 * to live or whose attempts are used up (declared in docs/providers/termii.md, where Termii is silent).
 */
export type TokenCheck = { found: false } | { found: true; to: string; verified: 'True' | 'False' | 'Expired' };

/** The fake's token store: codes it sent, by pin id; a verified code is forgotten, a spent one reads expired. */
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
    if (Date.now() > token.expiresAt || token.attemptsLeft <= 0) {
      if (Date.now() > token.expiresAt) this.#tokens.delete(pinId);
      return { found: true, to: token.to, verified: 'Expired' };
    }
    if (token.pin === pin) {
      this.#tokens.delete(pinId);
      return { found: true, to: token.to, verified: 'True' };
    }
    token.attemptsLeft -= 1;
    return { found: true, to: token.to, verified: 'False' };
  }

  clear(): void {
    this.#tokens.clear();
  }
}
