import { isProvablyUnsent, ProviderProtocolError, ProviderUnavailableError, silentLogger } from '@verikit/provider';
import { callAgainst, type Misbehaviour } from '@verikit/provider-utils/fake';
import { describe, expect, it } from 'vitest';
import { createGatewayProvider } from './create-gateway-provider.js';

/** The provider, its base URLs pointing at a local server. */
function providerAt(url: string) {
  return createGatewayProvider({
    apiKey: 'gateway-secret-key-0123456789',
    baseUrl: url,
    ussdBaseUrl: url,
    defaultSender: 'Acme',
    timeout: 2000,
  });
}

const context = () => ({ signal: new AbortController().signal, idempotencyKey: 'f:effect:1', logger: silentLogger });

// Finding 6 and issue 17, item 8, on the gateway service's wire: a send that may have gone out is never "provably unsent"
// (the engine keeps its cooldown, failover stays); a 500 answer is (the user may retry at once).
const ok = (body: string): Misbehaviour => ({ kind: 'status', status: 200, body });

const cases: ReadonlyArray<[string, Misbehaviour, boolean]> = [
  [
    'answers after the timeout',
    { kind: 'late', delayMs: 60_000, body: '{"success":true,"data":{"requestId":"late"}}' },
    false,
  ],
  ['resets the connection after reading the request', { kind: 'reset' }, false],
  [
    'answers 500',
    { kind: 'status', status: 500, body: '{"success":false,"message":"Error sending OTP","code":0,"data":null}' },
    true,
  ],
];

describe('gateway: which failed sends may have gone out', () => {
  it.each(cases)('a gateway service that %s', async (_label, behaviour, unsent) => {
    const sent = await callAgainst(behaviour, (url) =>
      providerAt(url).phone!.send({ phoneNumber: '+2348012345678', channel: 'sms' }, context()),
    );
    expect(ProviderUnavailableError.isInstance(sent.error)).toBe(true);
    expect([isProvablyUnsent(sent.error), sent.received]).toEqual([unsent, 1]);
  });
});

// Finding 11: a check answer of the wrong type was read as valid. Read strictly by the documented type.
describe('gateway: a check answer of the wrong type is never valid', () => {
  const answers: ReadonlyArray<[string, string]> = [
    ['{"success":true,"data":{"valid":"false"}}', 'data.valid'],
    ['{"success":true,"data":{"valid":0}}', 'data.valid'],
    ['{"success":true,"data":{"verified":null}}', 'data.verified'],
  ];
  it.each(answers)('%s is a protocol error on %s', async (body, field) => {
    const { error } = await callAgainst(ok(body), (url) =>
      providerAt(url).phone!.check({ requestId: 'req-1', code: '123456' }, context()),
    );
    expect([ProviderProtocolError.isInstance(error), (error as ProviderProtocolError).field]).toEqual([true, field]);
  });

  it('a well-typed "not valid" is a wrong code', async () => {
    const { result } = await callAgainst(ok('{"success":true,"data":{"valid":false}}'), (url) =>
      providerAt(url).phone!.check({ requestId: 'req-1', code: '123456' }, context()),
    );
    expect(result).toEqual({ valid: false });
  });
});
