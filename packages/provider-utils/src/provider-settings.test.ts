import { InvalidInputError } from '@verikit/provider';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { resolveProviderSettings } from './provider-settings.js';
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

function fieldOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(InvalidInputError.isInstance(error)).toBe(true);
    expect(String((error as Error).message)).not.toContain('sk_live');
    return (error as InvalidInputError).field ?? '';
  }
  throw new Error('expected an InvalidInputError');
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
