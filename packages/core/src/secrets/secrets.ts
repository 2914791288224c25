import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createSecretKey,
  hkdfSync,
  type KeyObject,
  randomBytes,
  randomFillSync,
  randomInt,
  timingSafeEqual,
} from 'node:crypto';

/**
 * Keyed hashing and sealing with keys derived from the engine's secret (HKDF-SHA256, one key per
 * purpose). Hashes are HMAC-SHA256 truncated to 128 bits, in hex.
 */
export class SecretBox {
  /** A key object, made once: `createHmac` given a Buffer imports the key again on every hash. */
  readonly #hashKey: KeyObject;
  readonly #sealKey: Buffer;

  constructor(secret: string) {
    this.#hashKey = createSecretKey(Buffer.from(hkdfSync('sha256', secret, 'verikit', 'verikit hash v1', 32)));
    this.#sealKey = Buffer.from(hkdfSync('sha256', secret, 'verikit', 'verikit seal v1', 32));
  }

  /** HMAC of `value` in a named domain (`otp:<flowId>`, `number:bvn`), so hashes of one use never match another. */
  hash(domain: string, value: string): string {
    // One update of the joined text: the same bytes as `domain`, `\0`, `value` given in turn.
    return createHmac('sha256', this.#hashKey).update(`${domain}\0${value}`).digest('hex').slice(0, 32);
  }

  /** AES-256-GCM, bound to `domain`; returns base64url of iv, tag and ciphertext. */
  seal(domain: string, plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#sealKey, iv);
    cipher.setAAD(Buffer.from(domain));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** Opens what {@link seal} made for the same domain; throws when it was altered. */
  open(domain: string, sealed: string): string {
    const raw = Buffer.from(sealed, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.#sealKey, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(domain));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

/** A uniformly random string of `length` digits, from the OS's CSPRNG. */
export function generateOtp(length: number): string {
  let otp = '';
  for (let index = 0; index < length; index += 1) otp += String(randomInt(10));
  return otp;
}

/**
 * Random bytes for flow ids, filled 256 ids at a time and each byte used once (as node's own `randomUUID` keeps a
 * cache): one call into the random source per 256 starts instead of one per start.
 */
const idBytes = Buffer.alloc(16 * 256);
let idBytesUsed = idBytes.length;

/** 128 random bits, base64url: 22 characters. */
export function generateFlowId(): string {
  if (idBytesUsed === idBytes.length) {
    randomFillSync(idBytes);
    idBytesUsed = 0;
  }
  const id = idBytes.toString('base64url', idBytesUsed, idBytesUsed + 16);
  idBytesUsed += 16;
  return id;
}

/** Keeps the last `visible` characters: `*******5678`. */
export function mask(value: string, visible = 4): string {
  return '*'.repeat(Math.max(0, value.length - visible)) + value.slice(-visible);
}

/** Keeps the `+`, the first three digits and the last four: `+234*******678`. */
export function maskPhoneNumber(phoneNumber: string): string {
  if (phoneNumber.length <= 8) return mask(phoneNumber, 2);
  return phoneNumber.slice(0, 4) + '*'.repeat(phoneNumber.length - 8) + phoneNumber.slice(-4);
}

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
