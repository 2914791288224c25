import { silentLogger } from '@verikit/provider';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { providerFromEnv } from './provider-from-env.js';
import { runAll, startLocalServices } from './run.js';

afterEach(() => vi.unstubAllEnvs());

describe('examples/providers-per-env', () => {
  it('the same signup flow verifies on the gateway, Termii, Twilio and a composition, by changing only the environment', async () => {
    expect(await runAll()).toEqual({
      gateway: 'verified',
      termii: 'verified',
      twilio: 'verified',
      composed: 'verified',
    });
  });
  it('each run really went through its own provider: the welcome SMS lands in that provider’s outbox', async () => {
    const services = await startLocalServices();
    try {
      for (const environment of Object.values(services.environments))
        for (const [key, value] of Object.entries(environment)) vi.stubEnv(key, value);
      vi.stubEnv('VERIKIT_PROVIDER', 'termii');
      const termii = providerFromEnv();
      expect([termii.name, termii.ussd]).toEqual(['termii', undefined]);
      vi.stubEnv('VERIKIT_PROVIDER', 'composed');
      const composed = providerFromEnv();
      expect(composed.phone!.channels).toEqual(['sms', 'voice', 'whatsapp']);
      await composed.sms!.send(
        { from: 'Acme', to: '+2348031249999', message: 'hi' },
        { signal: new AbortController().signal, idempotencyKey: 'k', logger: silentLogger },
      );
      expect(services.termii.lastMessage('+2348031249999')).toBe('hi');
      vi.stubEnv('VERIKIT_PROVIDER', 'nope');
      expect(() => providerFromEnv()).toThrow('VERIKIT_PROVIDER');
    } finally {
      await services.close();
    }
  });
});
