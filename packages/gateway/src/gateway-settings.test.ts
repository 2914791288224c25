import { InvalidInputError, ProviderAuthenticationError } from '@verikit/provider';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createGatewayProvider } from './index.js';
import { callContext, expectNoSecrets, failureOf } from '@verikit/testing';
import { startGatewayFake, type GatewayFake } from './fake/start-gateway-fake.js';

const apiKey = 'sk_live_Gateway-From-Env-0042';
const context = callContext;
let sandbox: GatewayFake;

beforeAll(async () => {
  sandbox = await startGatewayFake({ apiKey });
});
afterAll(async () => {
  await sandbox.close();
});
afterEach(() => {
  vi.unstubAllEnvs();
});

function errorOf(run: () => unknown): InvalidInputError {
  try {
    run();
  } catch (error) {
    expect(InvalidInputError.isInstance(error)).toBe(true);
    return error as InvalidInputError;
  }
  throw new Error('expected an InvalidInputError');
}

describe('gateway settings from the environment', () => {
  it('takes GATEWAY_API_KEY, GATEWAY_BASE_URL and GATEWAY_USSD_BASE_URL when not passed, read at each call', async () => {
    vi.stubEnv('GATEWAY_API_KEY', apiKey);
    vi.stubEnv('GATEWAY_BASE_URL', sandbox.baseUrl);
    vi.stubEnv('GATEWAY_USSD_BASE_URL', sandbox.ussdBaseUrl);
    const provider = createGatewayProvider({ defaultSender: 'Verikit' });
    await provider.sms!.send({ to: '+2348031239901', message: 'from the environment' }, context());
    expect(sandbox.outbox.at(-1)).toMatchObject({ to: '+2348031239901', text: 'from the environment' });
    // A rotated (here: wrong) key is used at the next call, without creating the provider again.
    vi.stubEnv('GATEWAY_API_KEY', 'sk_rotated_Wrong-Key-0007');
    const error = await failureOf(provider.sms!.send({ to: '+2348031239901', message: 'x' }, context()));
    expect(ProviderAuthenticationError.isInstance(error)).toBe(true);
    expectNoSecrets(error, ['sk_rotated_Wrong-Key-0007', apiKey]);
  });
  it('a missing setting names the option and its variable, at creation', () => {
    vi.stubEnv('GATEWAY_API_KEY', undefined);
    const error = errorOf(() => createGatewayProvider({ baseUrl: sandbox.baseUrl, ussdBaseUrl: sandbox.ussdBaseUrl }));
    expect([error.field, error.message]).toEqual(['apiKey', 'apiKey is required: pass apiKey, or set GATEWAY_API_KEY']);
    vi.stubEnv('GATEWAY_API_KEY', apiKey);
    vi.stubEnv('GATEWAY_USSD_BASE_URL', undefined);
    expect(errorOf(() => createGatewayProvider({ baseUrl: sandbox.baseUrl })).field).toBe('ussdBaseUrl');
  });
  it('a malformed variable names the variable, never its value; nothing is sent', async () => {
    vi.stubEnv('GATEWAY_API_KEY', apiKey);
    vi.stubEnv('GATEWAY_BASE_URL', `https://user:${apiKey}@api.example.com`);
    const error = errorOf(() => createGatewayProvider({ ussdBaseUrl: sandbox.ussdBaseUrl }));
    expect(error.field).toBe('GATEWAY_BASE_URL');
    expectNoSecrets(error, [apiKey]);
    // Set right at creation, broken afterwards: the call fails with the same error and sends nothing.
    vi.stubEnv('GATEWAY_BASE_URL', sandbox.baseUrl);
    const provider = createGatewayProvider({ ussdBaseUrl: sandbox.ussdBaseUrl, defaultSender: 'Verikit' });
    vi.stubEnv('GATEWAY_BASE_URL', 'ftp://api.example.com');
    const before = sandbox.outbox.length;
    const late = await failureOf(provider.sms!.send({ to: '+2348031239902', message: 'x' }, context()));
    expect([InvalidInputError.isInstance(late), late.field]).toEqual([true, 'GATEWAY_BASE_URL']);
    expect(sandbox.outbox.length).toBe(before);
  });
  it('createGatewayProvider() with no argument runs a phone verification from GATEWAY_* alone, sender included', async () => {
    vi.stubEnv('GATEWAY_API_KEY', apiKey);
    vi.stubEnv('GATEWAY_BASE_URL', sandbox.baseUrl);
    vi.stubEnv('GATEWAY_USSD_BASE_URL', sandbox.ussdBaseUrl);
    vi.stubEnv('GATEWAY_SENDER', 'FromEnv');
    const provider = createGatewayProvider();
    expect(provider.sms?.requires).toBeUndefined();
    const { requestId } = await provider.phone!.send({ phoneNumber: '+2348031239903', channel: 'sms' }, context());
    expect(sandbox.outbox.at(-1)).toMatchObject({ to: '+2348031239903', from: 'FromEnv', kind: 'phone-code' });
    const code = sandbox.lastCode('+2348031239903')!;
    expect(await provider.phone!.check({ requestId, code }, context())).toEqual({ valid: true });
  });
  it('createGatewayProvider({ apiKey, baseUrl, ussdBaseUrl }) takes its sender from GATEWAY_SENDER', async () => {
    vi.stubEnv('GATEWAY_SENDER', 'EnvSender');
    const provider = createGatewayProvider({ apiKey, baseUrl: sandbox.baseUrl, ussdBaseUrl: sandbox.ussdBaseUrl });
    await provider.phone!.send({ phoneNumber: '+2348031239904', channel: 'sms' }, context());
    expect(sandbox.outbox.at(-1)).toMatchObject({ to: '+2348031239904', from: 'EnvSender' });
  });
  it('without a sender anywhere, a send names from, defaultSender and GATEWAY_SENDER; a bad one names the variable', async () => {
    vi.stubEnv('GATEWAY_SENDER', undefined);
    const provider = createGatewayProvider({ apiKey, baseUrl: sandbox.baseUrl, ussdBaseUrl: sandbox.ussdBaseUrl });
    expect(provider.sms?.requires).toEqual(['sender']);
    const error = await failureOf(provider.phone!.send({ phoneNumber: '+2348031239905', channel: 'sms' }, context()));
    expect([error.field, error.message]).toEqual([
      'from',
      'from is required: pass from, or set defaultSender (or GATEWAY_SENDER)',
    ]);
    vi.stubEnv('GATEWAY_SENDER', 'A sender that is far too long');
    const bad = errorOf(() =>
      createGatewayProvider({ apiKey, baseUrl: sandbox.baseUrl, ussdBaseUrl: sandbox.ussdBaseUrl }),
    );
    expect(bad.field).toBe('GATEWAY_SENDER');
  });
});
