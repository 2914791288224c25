import { describe, expect, it } from 'vitest';
import { flowIdSchema } from '@verikit/provider';
import { generateFlowId, SecretBox } from './secrets.js';

describe('generateFlowId', () => {
  it('is base64url of at least 16 bytes (128 bits), and a valid flow id', () => {
    for (let index = 0; index < 1_000; index += 1) {
      const id = generateFlowId();
      expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
      const bytes = Buffer.from(id, 'base64url');
      expect(bytes.length).toBeGreaterThanOrEqual(16);
      // The decoding is exact: no characters were dropped or padded.
      expect(bytes.toString('base64url')).toBe(id);
      expect(flowIdSchema.safeParse(id).success).toBe(true);
    }
  });

  it('10,000 ids are all distinct, and every one of their bits is random (no constant padding)', () => {
    const ids = Array.from({ length: 10_000 }, () => generateFlowId());
    expect(new Set(ids).size).toBe(10_000);
    // Each decoded bit is set in about half of the ids (5,000 ± 50 for random bits: 40-60% is 20 standard deviations).
    const decoded = ids.map((id) => Buffer.from(id, 'base64url'));
    const bits = Math.min(...decoded.map((bytes) => bytes.length)) * 8;
    expect(bits).toBeGreaterThanOrEqual(128);
    for (let bit = 0; bit < bits; bit += 1) {
      const set = decoded.filter((bytes) => (bytes[bit >> 3]! >> (bit & 7)) & 1).length;
      expect(set, `bit ${bit}`).toBeGreaterThan(4_000);
      expect(set, `bit ${bit}`).toBeLessThan(6_000);
    }
  });
});

describe('SecretBox.hash', () => {
  it('gives the hashes stored keys were made with: HMAC-SHA256 of domain, NUL and value, 128 bits in hex', () => {
    const box = new SecretBox('a-secret-of-at-least-32-characters!!');
    expect(box.hash('number:phone', '+2348031234567')).toBe('83a4f2a1f424bb5d7b736d45de8ef109');
    expect(box.hash('delivery:message', 'SM0123')).toBe('fa67e70ec1ce05029a8d36a574a453dc');
    expect(box.hash('otp:abc', 'Ünïcødé 😀')).toBe('aec41ca952178f85e38d1a99af3f3a82');
    expect(box.hash('number:phone', '')).not.toBe(box.hash('number:phon', 'e'));
  });
});
