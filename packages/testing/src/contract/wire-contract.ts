import {
  CapabilityError,
  InvalidInputError,
  isProvablyUnsent,
  ProviderProtocolError,
  ProviderUnavailableError,
  silentLogger,
  type ProviderV1,
} from '@verikit/provider';
import { describe, expect, it, type TestContext } from 'vitest';
import { callAgainst, type Misbehaviour } from '../misbehaving-server.js';

/** An HTTP provider under the wire contract: how to make it against a local server, and the answers to play. */
export interface WireSubject {
  /** The provider with every base URL pointing at `url` (and a timeout of a second or two). */
  providerAt(url: string): ProviderV1;
  /** A 2xx body of a successful phone send, answered too late (after the client's timeout). */
  readonly lateSendAnswer: string;
  /** The body of the provider's 500 answer, as the service writes one. */
  readonly serverErrorAnswer: string;
  /** The `requestId` a phone check is made with. */
  readonly requestId: string;
  /** 2xx check answers whose validity field has the wrong type, each with the field the error must name. */
  readonly wrongTypedCheckAnswers: ReadonlyArray<readonly [body: string, field: string]>;
  /** A well-typed 2xx check answer that says "not valid". */
  readonly notValidCheckAnswer: string;
  /**
   * The vendor's own refusals, beside the spec's (its sender rules, its number format): each call, made on the
   * provider, must be an `InvalidInputError` naming the field before any request, as the spec's refusals are.
   */
  readonly refusedInputs?: ReadonlyArray<
    readonly [operation: string, field: string, call: (provider: ProviderV1) => Promise<unknown>]
  >;
}

const context = () => ({ signal: new AbortController().signal, idempotencyKey: 'wire:effect:1', logger: silentLogger });
const ok = (body: string): Misbehaviour => ({ kind: 'status', status: 200, body });

/** The capabilities a malformed input is tried on. */
type Capability = 'ussd' | 'phone' | 'identity' | 'sms' | 'whatsapp';

/**
 * Inputs the spec's schemas refuse, one field wrong in each: the operation, the field the `InvalidInputError` must
 * name, the capability the call needs, and the call. What a vendor narrows further (its sender rules, its number
 * format) is the provider's own test.
 */
const malformed: ReadonlyArray<readonly [string, string, Capability, (provider: ProviderV1) => Promise<unknown>]> = [
  ['ussd.initiate', 'phoneNumber', 'ussd', (p) => p.ussd!.initiate({ phoneNumber: '08031110008' }, context())],
  ['ussd.initiate', 'input', 'ussd', (p) => p.ussd!.initiate(null as never, context())],
  [
    'phone.send',
    'phoneNumber',
    'phone',
    (p) => p.phone!.send({ phoneNumber: '2348031110008', channel: 'sms', from: 'Verikit' }, context()),
  ],
  [
    'phone.send',
    'phoneNumber',
    'phone',
    (p) => p.phone!.send({ phoneNumber: '+234803111000a', channel: 'sms', from: 'Verikit' }, context()),
  ],
  [
    'phone.send',
    'phoneNumber',
    'phone',
    (p) => p.phone!.send({ phoneNumber: `+${'1'.repeat(1_000_000)}`, channel: 'sms', from: 'Verikit' }, context()),
  ],
  [
    'phone.send',
    'channel',
    'phone',
    (p) => p.phone!.send({ phoneNumber: '+2348031110008', channel: 'fax' as never, from: 'Verikit' }, context()),
  ],
  [
    'phone.send',
    'locale',
    'phone',
    (p) =>
      p.phone!.send(
        { phoneNumber: '+2348031110008', channel: 'sms', from: 'Verikit', locale: 'x'.repeat(1_000_000) },
        context(),
      ),
  ],
  ['phone.send', 'input', 'phone', (p) => p.phone!.send(null as never, context())],
  ['phone.check', 'code', 'phone', (p) => p.phone!.check({ requestId: 'req-1', code: '12ab' }, context())],
  ['phone.check', 'requestId', 'phone', (p) => p.phone!.check({ requestId: '', code: '1234' }, context())],
  [
    'phone.check',
    'requestId',
    'phone',
    (p) => p.phone!.check({ requestId: 'x'.repeat(1_000_000), code: '1234' }, context()),
  ],
  [
    'identity.sendOtp',
    'idType',
    'identity',
    (p) => p.identity!.sendOtp({ idType: 'passport' as never, number: '22212345678', otp: '123456' }, context()),
  ],
  [
    'identity.sendOtp',
    'otp',
    'identity',
    (p) => p.identity!.sendOtp({ idType: 'bvn', number: '22212345678', otp: 7 as never }, context()),
  ],
  [
    'sms.send',
    'message',
    'sms',
    (p) => p.sms!.send({ from: 'Verikit', to: '+2348031110008', message: 'x'.repeat(1_000_000) }, context()),
  ],
  ['sms.send', 'to', 'sms', (p) => p.sms!.send({ from: 'Verikit', to: 42 as never, message: 'x' }, context())],
  [
    'whatsapp.send',
    'phoneNumber',
    'whatsapp',
    (p) => p.whatsapp!.send({ phoneNumber: '+234 803', message: 'x' }, context()),
  ],
];

/**
 * The checks every HTTP provider's phone capability must pass on a failing wire, against a real local server
 * ({@link callAgainst}): a send that may have gone out (a late answer, a reset after the request was read) is a
 * `ProviderUnavailableError` that is never provably unsent, so the engine keeps its cooldown and failover does not
 * send again (decision 0920); a 500 is provably unsent. A check answer is read strictly by its documented type: a
 * field of the wrong type is a `ProviderProtocolError` naming it, never a valid code. And no request leaves for an
 * input the spec refuses (an `InvalidInputError` naming the field, on every capability the provider declares), for
 * one the vendor refuses (`refusedInputs`), or for a code we generate sent to a provider without `customCode` (a
 * `CapabilityError` on `code`).
 *
 * @example
 * runWireContract('termii', {
 *   providerAt: (url) => createTermiiProvider({ apiKey, baseUrl: url, senderId: 'Acme', timeout: 2000 }),
 *   lateSendAnswer: '{"pinId":"late","code":"ok"}',
 *   serverErrorAnswer: '{"code":"fail","message":"error"}',
 *   requestId: 'pin-1',
 *   wrongTypedCheckAnswers: [['{"pinId":"pin-1","verified":0}', 'verified']],
 *   notValidCheckAnswer: '{"pinId":"pin-1","verified":"False"}',
 * });
 */
export function runWireContract(name: string, subject: WireSubject): void {
  const sends: ReadonlyArray<[string, Misbehaviour, boolean]> = [
    ['answers after the timeout', { kind: 'late', delayMs: 60_000, body: subject.lateSendAnswer }, false],
    ['resets the connection after reading the request', { kind: 'reset' }, false],
    ['answers 500', { kind: 'status', status: 500, body: subject.serverErrorAnswer }, true],
  ];
  const check = (body: string) =>
    callAgainst(ok(body), (url) =>
      subject.providerAt(url).phone!.check({ requestId: subject.requestId, code: '123456' }, context()),
    );

  describe(`${name}: which failed sends may have gone out`, () => {
    it.each(sends)(`a ${name} that %s`, async (_label, behaviour, unsent) => {
      const sent = await callAgainst(behaviour, (url) =>
        subject.providerAt(url).phone!.send({ phoneNumber: '+2348012345678', channel: 'sms' }, context()),
      );
      expect(ProviderUnavailableError.isInstance(sent.error)).toBe(true);
      expect([isProvablyUnsent(sent.error), sent.received]).toEqual([unsent, 1]);
    });
  });

  describe(`${name}: a check answer of the wrong type is never valid`, () => {
    it.each(subject.wrongTypedCheckAnswers)('%s is a protocol error on %s', async (body, field) => {
      const { error } = await check(body);
      expect([ProviderProtocolError.isInstance(error), (error as ProviderProtocolError).field]).toEqual([true, field]);
    });

    it('a well-typed "not valid" is a wrong code', async () => {
      expect((await check(subject.notValidCheckAnswer)).result).toEqual({ valid: false });
    });
  });

  /** Runs `call` on the provider against a server that would accept it; skipped when the provider lacks `capability`. */
  const refused = async (test: TestContext, capability: Capability, call: (provider: ProviderV1) => Promise<unknown>) =>
    callAgainst(ok(subject.lateSendAnswer), (url) => {
      const provider = subject.providerAt(url);
      if (provider[capability] === undefined) test.skip(`the provider has no ${capability} capability`);
      return call(provider);
    });

  const own = (subject.refusedInputs ?? []).map(
    ([operation, field, call]) => [operation, field, operation.split('.')[0] as Capability, call] as const,
  );
  describe(`${name}: an input the spec or the vendor refuses sends nothing`, () => {
    for (const [operation, field, capability, call] of [...malformed, ...own]) {
      it(`${operation}: bad ${field} is an InvalidInputError naming it, and no request leaves`, async (test) => {
        const { error, received } = await refused(test, capability, call);
        expect([InvalidInputError.isInstance(error), (error as InvalidInputError).field, received]).toEqual([
          true,
          field,
          0,
        ]);
      });
    }
    it('a code we generate, without customCode: a CapabilityError on code, and no request leaves', async (test) => {
      const { error, received } = await refused(test, 'phone', (provider) => {
        if (provider.phone!.customCode === true) test.skip('the provider takes codes we generate');
        return provider.phone!.send({ phoneNumber: '+2348031110008', channel: 'sms', code: '123456' }, context());
      });
      expect([CapabilityError.isInstance(error), (error as CapabilityError).field, received]).toEqual([
        true,
        'code',
        0,
      ]);
    });
  });
}
