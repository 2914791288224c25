import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { providerFromEnv } from './provider-from-env.js';
import { settingsFromEnv, type Env } from './settings-from-env.js';

const exampleFile = readFileSync(new URL('../.env.example', import.meta.url), 'utf8');

/** `NAME=value` lines as set, and every name listed, commented out or not. */
function parseEnvExample(text: string): { set: Record<string, string>; listed: string[] } {
  const set: Record<string, string> = {};
  const listed: string[] = [];
  for (const line of text.split('\n')) {
    const match = /^(#\s*)?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (match === null) continue;
    listed.push(match[2]!);
    if (match[1] === undefined) set[match[2]!] = match[3]!;
  }
  return { set, listed };
}

/** The environment given to the app, recording every name the app reads. */
function recording(values: Env, read: Set<string>): Env {
  return new Proxy(values, {
    get(target, name) {
      if (typeof name === 'string') read.add(name);
      return Reflect.get(target, name);
    },
  });
}

describe('examples/signup/.env.example', () => {
  it('lists exactly the variables the app reads, for every provider it can run on', async () => {
    const { listed } = parseEnvExample(exampleFile);
    const read = new Set<string>();
    settingsFromEnv(recording({}, read));
    const gateway = {
      VERIKIT_PROVIDER: 'gateway',
      GATEWAY_API_KEY: 'k',
      GATEWAY_BASE_URL: 'https://api.example.com',
      GATEWAY_USSD_BASE_URL: 'https://ussd.example.com',
      GATEWAY_SENDER: 'Acme',
      VERIKIT_WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    };
    for (const env of [{ VERIKIT_PROVIDER: 'sandbox' }, { VERIKIT_PROVIDER: 'test' }, gateway]) {
      const setup = await providerFromEnv(recording(env, read), {
        webhookUrl: 'http://127.0.0.1:9/api/verify/webhooks',
      });
      await setup.close();
    }
    expect([...listed].sort()).toEqual([...read].sort());
    expect(new Set(listed).size).toBe(listed.length);
  });

  it('works as copied: the settings parse and the provider it names starts', async () => {
    const { set } = parseEnvExample(exampleFile);
    const settings = settingsFromEnv(set);
    expect(settings).toMatchObject({ port: 3000, host: '127.0.0.1' });
    const setup = await providerFromEnv(set, { webhookUrl: 'http://127.0.0.1:9/api/verify/webhooks' });
    try {
      expect(setup.name).toBe('sandbox');
    } finally {
      await setup.close();
    }
  });
});
