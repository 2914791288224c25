import { describe, expect, it } from 'vitest';
import { signWebhook, webhookSecretKey } from './standard-webhooks-signature.js';

describe('Standard Webhooks signatures', () => {
  it("match the spec's published vector", () => {
    // From standard-webhooks/standard-webhooks, libraries/javascript/src/webhook.test.ts ("sign function works"),
    // commit 10d3e46d720c4e5861a792bec25792a04ad4e2b3, read 2026-11-24.
    const key = webhookSecretKey('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')!;
    expect(signWebhook(key, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('refuse secrets that are not whsec_ and 24 to 64 bytes of base64', () => {
    for (const bad of [
      '',
      'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'whsec_short',
      'whsec_not base64!!',
      `whsec_${'A'.repeat(88)}`,
    ])
      expect(webhookSecretKey(bad)).toBeUndefined();
  });
});
