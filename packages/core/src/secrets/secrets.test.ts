import { describe, expect, it } from 'vitest';
import { flowIdSchema } from '@verikit/provider';
import { generateFlowId } from './secrets.js';

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
