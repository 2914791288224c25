import { InvalidInputError } from '@verikit/provider';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkSettings, settingReader } from './load-setting.js';
import { baseUrlSchema, secretSchema } from './settings-schemas.js';

const secret = 'sk_test_Setting-Secret-0001';

function errorOf(run: () => unknown): InvalidInputError {
  try {
    run();
  } catch (error) {
    expect(InvalidInputError.isInstance(error)).toBe(true);
    return error as InvalidInputError;
  }
  throw new Error('expected an InvalidInputError');
}

afterEach(() => {
  vi.unstubAllEnvs();
});

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
