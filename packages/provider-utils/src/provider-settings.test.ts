import { InvalidInputError } from '@verikit/provider';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { checkSettings, resolveProviderSettings, settingReader } from './provider-settings.js';
import { baseUrlSchema, secretSchema } from './settings-schemas.js';

const definition = {
  name: 'acme',
  environment: {
    apiKey: { variable: 'VERIKIT_ACME_API_KEY', schema: secretSchema },
    baseUrl: { variable: 'VERIKIT_ACME_BASE_URL', schema: baseUrlSchema, fallback: 'https://api.acme.test' },
    sender: { variable: 'VERIKIT_ACME_SENDER', schema: z.string().regex(/^[A-Za-z]{3,11}$/), optional: true },
  },
  options: { region: z.enum(['eu', 'us'], { error: 'must be eu or us' }).optional() },
} as const;

/** The `InvalidInputError` `run` throws (failing the test when it throws anything else, or nothing). */
function errorOf(run: () => unknown): InvalidInputError {
  try {
    run();
  } catch (error) {
    expect(InvalidInputError.isInstance(error)).toBe(true);
    return error as InvalidInputError;
  }
  throw new Error('expected an InvalidInputError');
}

/** The field the `InvalidInputError` of `run` names; its message never quotes a key. */
function fieldOf(run: () => unknown): string {
  const error = errorOf(run);
  expect(error.message).not.toContain('sk_live');
  return error.field ?? '';
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('resolveProviderSettings', () => {
  it('reads what is not passed from the environment at each call, with fallbacks, optional settings and defaults', () => {
    vi.stubEnv('VERIKIT_ACME_API_KEY', 'first-key');
    const { options, readers, transport } = resolveProviderSettings({ region: 'eu' }, definition);
    expect(options).toEqual({ region: 'eu' });
    expect([readers.apiKey(), readers.baseUrl(), readers.sender()]).toEqual([
      'first-key',
      'https://api.acme.test',
      undefined,
    ]);
    vi.stubEnv('VERIKIT_ACME_API_KEY', 'rotated-key');
    vi.stubEnv('VERIKIT_ACME_SENDER', 'Acme');
    expect([readers.apiKey(), readers.sender()]).toEqual(['rotated-key', 'Acme']);
    expect(transport).toEqual({ timeout: 10_000, connectionRetries: 1, connectionRetryDelayMs: 50, name: 'acme' });
  });

  it('a passed option wins over the environment, and the transport options are taken', () => {
    vi.stubEnv('VERIKIT_ACME_API_KEY', 'from-the-environment');
    const fetch = globalThis.fetch;
    const { readers, transport } = resolveProviderSettings(
      { apiKey: 'sk_live_passed', timeout: 2_000, name: 'acme-eu', fetch },
      definition,
    );
    expect(readers.apiKey()).toBe('sk_live_passed');
    expect(transport).toEqual({
      timeout: 2_000,
      connectionRetries: 1,
      connectionRetryDelayMs: 50,
      name: 'acme-eu',
      fetch,
    });
  });

  it('fails at creation naming the setting: missing, malformed (passed or in the environment), unknown, not an object', () => {
    expect(fieldOf(() => resolveProviderSettings({}, definition))).toBe('apiKey');
    expect(fieldOf(() => resolveProviderSettings({ apiKey: 'sk_live x' }, definition))).toBe('apiKey');
    vi.stubEnv('VERIKIT_ACME_API_KEY', 'sk_live_key');
    vi.stubEnv('VERIKIT_ACME_BASE_URL', 'ftp://acme.test');
    expect(fieldOf(() => resolveProviderSettings({}, definition))).toBe('VERIKIT_ACME_BASE_URL');
    vi.stubEnv('VERIKIT_ACME_BASE_URL', '');
    expect(fieldOf(() => resolveProviderSettings({ region: 'asia' }, definition))).toBe('region');
    expect(fieldOf(() => resolveProviderSettings({ apikey: 'sk_live_key' }, definition))).toBe('input');
    expect(fieldOf(() => resolveProviderSettings(null, definition))).toBe('input');
    expect(fieldOf(() => resolveProviderSettings({ timeout: -1 }, definition))).toBe('timeout');
  });
});

const secret = 'sk_test_Setting-Secret-0001';

describe('settingReader', () => {
  it('a passed value wins; the environment is not read', () => {
    vi.stubEnv('VERIKIT_TEST_KEY', 'from-the-environment');
    const read = settingReader({
      name: 'apiKey',
      environmentVariable: 'VERIKIT_TEST_KEY',
      schema: secretSchema,
      value: secret,
    });
    expect(read()).toBe(secret);
  });
  it('reads the environment at each call, so a rotated key is used without a restart', () => {
    vi.stubEnv('VERIKIT_TEST_KEY', 'first-key');
    const read = settingReader({ name: 'apiKey', environmentVariable: 'VERIKIT_TEST_KEY', schema: secretSchema });
    expect(read()).toBe('first-key');
    vi.stubEnv('VERIKIT_TEST_KEY', 'second-key');
    expect(read()).toBe('second-key');
  });
  it('a missing setting names the option and the variable', () => {
    vi.stubEnv('VERIKIT_TEST_KEY', undefined);
    const read = settingReader({ name: 'apiKey', environmentVariable: 'VERIKIT_TEST_KEY', schema: secretSchema });
    const error = errorOf(read);
    expect(error.field).toBe('apiKey');
    expect(error.message).toBe('apiKey is required: pass apiKey, or set VERIKIT_TEST_KEY');
    expect(() => checkSettings([read])).toThrow('VERIKIT_TEST_KEY');
  });
  it('an empty variable counts as missing; a fallback fills in', () => {
    vi.stubEnv('VERIKIT_TEST_URL', '');
    const read = settingReader({
      name: 'baseUrl',
      environmentVariable: 'VERIKIT_TEST_URL',
      schema: baseUrlSchema,
      fallback: 'https://api.example.com',
    });
    expect(read()).toBe('https://api.example.com');
  });
  it('a malformed variable names the variable and never echoes its value', () => {
    vi.stubEnv('VERIKIT_TEST_URL', `https://user:${secret}@api.example.com`);
    const error = errorOf(
      settingReader({ name: 'baseUrl', environmentVariable: 'VERIKIT_TEST_URL', schema: baseUrlSchema }),
    );
    expect(error.field).toBe('VERIKIT_TEST_URL');
    expect(JSON.stringify({ ...error, message: error.message, issues: error.issues })).not.toContain(secret);
    vi.stubEnv('VERIKIT_TEST_KEY', `${secret} with spaces`);
    const key = errorOf(
      settingReader({ name: 'apiKey', environmentVariable: 'VERIKIT_TEST_KEY', schema: secretSchema }),
    );
    expect([key.field, key.message.includes(secret)]).toEqual(['VERIKIT_TEST_KEY', false]);
    vi.stubEnv('VERIKIT_TEST_KEY', 'x'.repeat(1_000_000));
    expect(
      errorOf(settingReader({ name: 'apiKey', environmentVariable: 'VERIKIT_TEST_KEY', schema: secretSchema })).field,
    ).toBe('VERIKIT_TEST_KEY');
  });
});
