import { readFileSync } from 'node:fs';
import { createVerikit } from '@verikit/core';
import { startGatewayFake } from '@verikit/gateway/fake';
import { startTermiiFake } from '@verikit/termii/fake';
import { startTwilioFake } from '@verikit/twilio/fake';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { providerFromEnv } from './provider-from-env.js';

const exampleFile = readFileSync(new URL('.env.example', import.meta.url), 'utf8');
const lines = exampleFile
  .split('\n')
  .map((line) => /^(#\s*)?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim()))
  .filter((match) => match !== null);
const listed = lines.map((match) => match[2]!);
const set = Object.fromEntries(lines.filter((match) => match[1] === undefined).map((match) => [match[2]!, match[3]!]));

/** Every variable a provider's settings read: the names its settings schema gives `settingReader`. */
const providerVariables = ['gateway', 'termii', 'twilio'].flatMap((name) => {
  const source = readFileSync(
    new URL(`../../packages/${name}/src/${name}-settings-schema.ts`, import.meta.url),
    'utf8',
  );
  return [...source.matchAll(/'((?:GATEWAY|TERMII|TWILIO)_[A-Z_]+)'/g)].map((match) => match[1]!);
});

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('examples/providers-per-env/.env.example', () => {
  it('lists exactly what provider-from-env.ts and the providers it creates read', () => {
    expect([...listed].sort()).toEqual([...new Set(['VERIKIT_PROVIDER', ...providerVariables])].sort());
  });

  it('works as copied, for each provider, once the fakes it names run (here on free ports)', async () => {
    const [gateway, termii, twilio] = await Promise.all([startGatewayFake(), startTermiiFake(), startTwilioFake()]);
    const ports: Record<string, string> = { '4010': gateway.url, '4011': termii.url, '4012': twilio.url };
    try {
      for (const provider of ['gateway', 'termii', 'twilio', 'composed']) {
        for (const [name, value] of Object.entries(set))
          vi.stubEnv(
            name,
            value.replace(/^http:\/\/127\.0\.0\.1:(\d+)$/, (_, port: string) => ports[port]!),
          );
        vi.stubEnv('VERIKIT_PROVIDER', provider);
        const verikit = createVerikit({
          provider: providerFromEnv(),
          secret: 'an-engine-secret-of-32-characters-or-more',
        });
        const phoneNumber = '+2348031130020';
        const flow = await verikit.start({ kind: 'phone', phoneNumber });
        const code = [gateway, termii, twilio].map((fake) => fake.lastCode(phoneNumber)).find(Boolean)!;
        expect((await verikit.send(flow.id, { type: 'submit-code', code })).status).toBe('verified');
        for (const fake of [gateway, termii, twilio]) fake.reset();
      }
    } finally {
      await Promise.all([gateway.close(), termii.close(), twilio.close()]);
    }
  });
});
