import { isProvablyUnsent, ProviderUnavailableError, silentLogger } from '@verikit/provider';
import { startMisbehavingServer, type Misbehaviour } from '@verikit/provider-utils/fake';
import { describe, expect, it } from 'vitest';
import { createTermiiProvider } from './create-termii-provider.js';

// Finding 6 and issue 17, item 8, on Termii's wire: a send that may have gone out is never "provably unsent"
// (the engine keeps its cooldown, failover stays); a 500 answer is (the user may retry at once).
const cases: ReadonlyArray<[string, Misbehaviour, boolean]> = [
  ['answers after the timeout', { kind: 'late', delayMs: 1000, body: '{"pinId":"late","code":"ok"}' }, false],
  ['resets the connection after reading the request', { kind: 'reset' }, false],
  ['answers 500', { kind: 'status', status: 500, body: '{"code":"fail","message":"error"}' }, true],
];

describe('termii: which failed sends may have gone out', () => {
  it.each(cases)('a Termii that %s: provably unsent is %s', async (_label, behaviour, unsent) => {
    const server = await startMisbehavingServer(behaviour);
    try {
      const provider = createTermiiProvider({
        apiKey: 'TLsecretTermiiKey0123456789',
        baseUrl: server.url,
        senderId: 'Acme',
        timeout: 200,
      });
      const context = { signal: new AbortController().signal, idempotencyKey: 'f:effect:1', logger: silentLogger };
      const error = await provider.phone!.send({ phoneNumber: '+2348012345678', channel: 'sms' }, context).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(ProviderUnavailableError.isInstance(error)).toBe(true);
      expect(isProvablyUnsent(error)).toBe(unsent);
      expect(server.received()).toBe(1);
    } finally {
      await server.close();
    }
  });
});
