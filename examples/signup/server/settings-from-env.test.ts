import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '@verikit/provider';
import { expectNoSecrets, failureOf } from '@verikit/testing';
import { settingsFromEnv } from './settings-from-env.js';

const fail = (env: Record<string, string>) => failureOf(Promise.resolve().then(() => settingsFromEnv(env)));

describe('settingsFromEnv', () => {
  it('defaults to port 3000 on 127.0.0.1, a fresh secret per process, and no policy overrides', () => {
    const first = settingsFromEnv({});
    expect(first).toMatchObject({ port: 3000, host: '127.0.0.1', policies: {} });
    expect(first.secret.length).toBeGreaterThanOrEqual(32);
    expect(settingsFromEnv({}).secret).not.toBe(first.secret);
  });

  it('reads the port and the policies, and ignores empty variables', () => {
    const settings = settingsFromEnv({
      PORT: '0',
      VERIKIT_MAX_ATTEMPTS: '3',
      VERIKIT_RESEND_COOLDOWN_MS: '0',
      VERIKIT_CODE_TTL_MS: '60000',
      VERIKIT_EFFECT_TIMEOUT_MS: '',
      HOME: '/root',
    });
    expect(settings.port).toBe(0);
    expect(settings.policies).toEqual({ maxAttempts: 3, resendCooldownMs: 0, codeTtlMs: 60_000 });
  });

  it.each([
    ['PORT', '80a'],
    ['PORT', '65536'],
    ['PORT', '-1'],
    ['VERIKIT_MAX_ATTEMPTS', '0'],
    ['VERIKIT_MAX_ATTEMPTS', '101'],
    ['VERIKIT_RESEND_COOLDOWN_MS', '1e3'],
    ['VERIKIT_CODE_TTL_MS', '999'],
    ['VERIKIT_EFFECT_TIMEOUT_MS', '99'],
    ['VERIKIT_SECRET', 'short-secret-value'],
  ])('refuses %s=%s naming the variable, never its value', async (name, value) => {
    const error = await fail({ [name]: value });
    expect(InvalidInputError.isInstance(error)).toBe(true);
    expect(error.field).toBe(name);
    // A one-digit value would be found in any message with a number in it.
    if (value.length >= 3) expectNoSecrets({ error, json: error.toJSON() }, [value]);
  });

  it('requires VERIKIT_SECRET with a real provider, and only then', async () => {
    expect((await fail({ VERIKIT_PROVIDER: 'gateway' })).field).toBe('VERIKIT_SECRET');
    const secret = 'a-secret-of-at-least-32-characters-0123';
    expect(settingsFromEnv({ VERIKIT_PROVIDER: 'gateway', VERIKIT_SECRET: secret }).secret).toBe(secret);
    expect(settingsFromEnv({ VERIKIT_PROVIDER: 'test' }).secret).not.toBe(secret);
  });
});
