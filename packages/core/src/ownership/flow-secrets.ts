import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** A flow secret as issued: 32 bytes of HMAC-SHA256, base64url (43 characters, 256 bits). */
const flowSecretPattern = /^[A-Za-z0-9_-]{43}$/;

/**
 * The flow secrets of an engine (docs/decisions/0900-flow-secret-derived-from-the-engine-secret.md):
 * the secret of a flow is HMAC-SHA256 of its id under a key derived from the engine's secret for this
 * use only. Nothing is stored, every instance sharing the engine secret knows the same secret, and
 * whoever holds only the id learns nothing of it.
 */
export class FlowSecrets {
  readonly #key: Buffer;

  constructor(engineSecret: string) {
    this.#key = Buffer.from(hkdfSync('sha256', engineSecret, 'verikit', 'verikit flow secret v1', 32));
  }

  /** The secret of a flow, for the browser that started it. */
  of(flowId: string): string {
    return createHmac('sha256', this.#key).update(flowId).digest('base64url');
  }

  /**
   * True when `secret` is the secret of `flowId`. The comparison takes the same time whatever the
   * secret holds, and whether the flow exists plays no part: a missing or wrong secret cannot tell a
   * live flow from an unknown one.
   */
  matches(flowId: string, secret: unknown): boolean {
    const expected = Buffer.from(this.of(flowId));
    const given = Buffer.from(typeof secret === 'string' && flowSecretPattern.test(secret) ? secret : '');
    // Compared against a value of the right length either way, so a malformed secret costs the same.
    const padded = given.length === expected.length ? given : Buffer.alloc(expected.length);
    return timingSafeEqual(padded, expected) && given.length === expected.length;
  }
}
