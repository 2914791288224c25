import {
  isProvablyUnsent,
  ProviderProtocolError,
  ProviderUnavailableError,
  silentLogger,
  type ProviderV1,
} from '@verikit/provider';
import { describe, expect, it } from 'vitest';
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
}

const context = () => ({ signal: new AbortController().signal, idempotencyKey: 'wire:effect:1', logger: silentLogger });
const ok = (body: string): Misbehaviour => ({ kind: 'status', status: 200, body });

/**
 * The checks every HTTP provider's phone capability must pass on a failing wire, against a real local server
 * ({@link callAgainst}): a send that may have gone out (a late answer, a reset after the request was read) is a
 * `ProviderUnavailableError` that is never provably unsent, so the engine keeps its cooldown and failover does not
 * send again (decision 0920); a 500 is provably unsent. A check answer is read strictly by its documented type: a
 * field of the wrong type is a `ProviderProtocolError` naming it, never a valid code.
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
}
