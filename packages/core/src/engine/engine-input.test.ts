import fc from 'fast-check';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { createTestProviderV1 } from '@verikit/testing';
import { describe, expect, it } from 'vitest';
import { InvalidInputError, VerikitError } from '@verikit/provider';
import { EventNotAllowedError, FlowNotFoundError } from '../errors/index.js';
import { createVerikit } from './create-verikit.js';
import { silentLogger } from '../index.js';
import { setup, testSecret } from './engine.fixtures.js';

const megabyte = 'x'.repeat(1024 * 1024);
const megabyteDigits = '1'.repeat(1024 * 1024);

/** Calls `call` and returns the error it threw; fails when it did not throw an InvalidInputError. */
async function invalid(call: () => unknown): Promise<InvalidInputError> {
  let error: unknown;
  try {
    await call();
  } catch (caught) {
    error = caught;
  }
  if (!InvalidInputError.isInstance(error)) throw new Error(`expected an InvalidInputError, got ${String(error)}`);
  return error;
}

describe('bad input to every public function: a typed error naming the field, and nothing written', () => {
  const badPhoneNumbers: Array<[string, unknown]> = [
    ['without +', '2348012345678'],
    ['with an unknown country code', '+99912345678'],
    ['of a landline', '+2342012345678'],
    ['with letters', '+234801234567a'],
    ['too short', '+23480'],
    ['too long', '+2348012345678901'],
    ['a megabyte', `+${megabyteDigits}`],
    ['a number', 2348012345678],
    ['null', null],
    ['an object', { toString: () => '+2348012345678' }],
    ['with a tab inside', '+234801\t2345678x'],
  ];

  it.each(badPhoneNumbers)('start(phone) with a phone number %s', async (_label, phoneNumber) => {
    const { verikit, raw, provider } = setup();
    const before = raw();
    const error = await invalid(() => verikit.start({ kind: 'phone', phoneNumber } as never));
    expect(error.field).toBe('phoneNumber');
    expect(raw()).toBe(before);
    expect(provider.calls).toHaveLength(0);
  });

  it.each(badPhoneNumbers)(
    'start(ussd), sendSms and sendWhatsApp with a phone number %s',
    async (_label, phoneNumber) => {
      const { verikit, raw } = setup({ defaultSender: 'Verikit' });
      const before = raw();
      expect((await invalid(() => verikit.start({ kind: 'ussd', phoneNumber } as never))).field).toBe('phoneNumber');
      expect((await invalid(() => verikit.sendSms({ to: phoneNumber, message: 'hi' } as never))).field).toBe('to');
      expect((await invalid(() => verikit.sendWhatsApp({ phoneNumber, message: 'hi' } as never))).field).toBe(
        'phoneNumber',
      );
      expect(raw()).toBe(before);
    },
  );

  it.each([
    ['10 digits', '1234567890'],
    ['12 digits', '123456789012'],
    ['letters', '1234567890a'],
    ['spaces', '123 4567 890'],
    ['a megabyte', megabyteDigits],
    ['a number', 12345678901],
  ])('start(identity) with a number of %s', async (_label, number) => {
    const { verikit, raw } = setup();
    const before = raw();
    for (const idType of ['bvn', 'nin']) {
      const error = await invalid(() => verikit.start({ kind: 'identity', idType, number } as never));
      expect(error.field).toBe('number');
      expect(error.message).not.toContain(String(number).slice(0, 9));
    }
    expect(raw()).toBe(before);
  });

  it.each([
    ['an unknown kind', { kind: 'email', phoneNumber: '+2348012345678' }, 'kind'],
    ['no kind', { phoneNumber: '+2348012345678' }, 'kind'],
    ['an unknown id type', { kind: 'identity', idType: 'ssn', number: '12345678901' }, 'idType'],
    ['an unknown channel', { kind: 'phone', phoneNumber: '+2348012345678', channel: 'pigeon' }, 'channel'],
    ['an unknown field', { kind: 'phone', phoneNumber: '+2348012345678', extra: true }, 'input'],
    ['a bad sender', { kind: 'phone', phoneNumber: '+2348012345678', from: megabyte }, 'from'],
    ['not an object', 'phone', 'input'],
    ['null', null, 'input'],
  ])('start with %s', async (_label, input, field) => {
    const { verikit, raw } = setup();
    const before = raw();
    expect((await invalid(() => verikit.start(input as never))).field).toBe(field);
    expect(raw()).toBe(before);
  });

  it('send, get, cancel and subscribe with malformed or unknown flow ids and events', async () => {
    const { verikit, raw } = setup();
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345678' });
    const before = raw();
    for (const flowId of ['', 'short', megabyte, 42, null, '../../etc/passwd-000000000000']) {
      expect((await invalid(() => verikit.get(flowId as never))).field).toBe('flowId');
      expect((await invalid(() => verikit.send(flowId as never, { type: 'cancel' }))).field).toBe('flowId');
      expect((await invalid(() => verikit.cancel(flowId as never))).field).toBe('flowId');
      expect((await invalid(() => verikit.subscribe(flowId as never, () => {}))).field).toBe('flowId');
    }
    const unknownId = 'A'.repeat(22);
    await expect(verikit.get(unknownId)).rejects.toSatisfy((error) => FlowNotFoundError.isInstance(error));
    await expect(verikit.send(unknownId, { type: 'cancel' })).rejects.toSatisfy(FlowNotFoundError.isInstance);
    for (const [event, field] of [
      [{ type: 'submit-code', code: '12a456' }, 'event.code'],
      [{ type: 'submit-code', code: '123' }, 'event.code'],
      [{ type: 'submit-code', code: megabyteDigits }, 'event.code'],
      [{ type: 'submit-code', code: 123456 }, 'event.code'],
      [{ type: 'submit-code' }, 'event.code'],
      [{ type: 'verify' }, 'event.type'],
      [{ type: 'tick', now: 0 }, 'event.type'],
      [{ type: 'effect-succeeded', effectId: `${id}:effect:1`, result: { valid: true } }, 'event.type'],
      [{ type: 'cancel', extra: 1 }, 'event'],
      ['cancel', 'event'],
    ] as const) {
      expect((await invalid(() => verikit.send(id, event as never))).field).toBe(field);
    }
    expect((await invalid(() => verikit.subscribe(id, 'not a function' as never))).field).toBe('listener');
    expect(raw()).toBe(before);
  });

  it('events not allowed in the current state change nothing', async () => {
    const { verikit, raw } = setup();
    const ussd = await verikit.start({ kind: 'ussd', phoneNumber: '+2348012345678' });
    const phone = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345679' });
    const before = raw();
    for (const [id, event] of [
      [ussd.id, { type: 'submit-code', code: '1234' }],
      [ussd.id, { type: 'resend' }],
      [ussd.id, { type: 'restart' }],
      [phone.id, { type: 'restart' }],
      [phone.id, { type: 'resend' }],
    ] as const) {
      const error = await verikit.send(id, event as never).catch((caught: unknown) => caught);
      expect(EventNotAllowedError.isInstance(error)).toBe(true);
      expect((error as EventNotAllowedError).field).toBe('event.type');
    }
    expect(raw()).toBe(before);
  });

  it('receive with malformed provider events', async () => {
    const { verikit, raw } = setup();
    await verikit.start({ kind: 'ussd', phoneNumber: '+2348012345678' });
    const before = raw();
    for (const [event, field] of [
      [{ type: 'ussd-verification', phoneNumber: '2348012345678', status: 'success' }, 'event.phoneNumber'],
      [{ type: 'ussd-verification', phoneNumber: '+2348012345678', status: 'maybe' }, 'event.status'],
      [{ type: 'ussd-verification', phoneNumber: '+2348012345678' }, 'event.status'],
      [{ type: 'sms-delivered', phoneNumber: '+2348012345678', status: 'success' }, 'event.type'],
      [{ type: 'ussd-verification', phoneNumber: megabyte, status: 'success' }, 'event.phoneNumber'],
      [null, 'event'],
    ] as const) {
      expect((await invalid(() => verikit.receive({ id: 'msg_1', event } as never))).field).toBe(field);
    }
    expect(raw()).toBe(before);
  });

  it('sendSms and sendWhatsApp with bad senders and messages', async () => {
    const { verikit, provider } = setup();
    const to = '+2348012345678';
    expect((await invalid(() => verikit.sendSms({ to, message: 'hi' }))).field).toBe('from');
    expect((await invalid(() => verikit.sendSms({ from: 'A sender name too long', to, message: 'hi' }))).field).toBe(
      'from',
    );
    expect((await invalid(() => verikit.sendSms({ from: 'Verikit', to, message: '' }))).field).toBe('message');
    expect((await invalid(() => verikit.sendSms({ from: 'Verikit', to, message: megabyte }))).field).toBe('message');
    expect((await invalid(() => verikit.sendWhatsApp({ phoneNumber: to, message: '   ' }))).field).toBe('message');
    expect((await invalid(() => verikit.sendWhatsApp({ phoneNumber: to, message: 42 } as never))).field).toBe(
      'message',
    );
    expect(provider.calls).toHaveLength(0);
  });

  it('identity number patterns with the global flag check every number afresh', async () => {
    const verikit = createVerikit({
      provider: createTestProviderV1(),
      secret: testSecret,
      identityNumberPatterns: { bvn: /^22\d{9}$/g },
    });
    for (let index = 0; index < 4; index += 1) {
      expect((await verikit.start({ kind: 'identity', idType: 'bvn', number: `2212345678${index}` })).status).toBe(
        'awaiting-code',
      );
    }
    expect((await invalid(() => verikit.start({ kind: 'identity', idType: 'bvn', number: '33312345678' }))).field).toBe(
      'number',
    );
  });

  it('createVerikit with bad options', () => {
    const provider = createTestProviderV1();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ provider, secret: 'short' }, 'secret'],
      [{ provider }, 'secret'],
      [{ provider, secret: 12_345_678 }, 'secret'],
      [{ provider, secret: ' '.repeat(32) }, 'secret'],
      [{ provider, secret: 'ab'.repeat(20) }, 'secret'],
      [{ provider: {}, secret: testSecret }, 'provider'],
      [{ provider, secret: testSecret, policies: { maxAttempts: 0 } }, 'policies.maxAttempts'],
      [{ provider, secret: testSecret, policies: { codeTtlMs: -1 } }, 'policies.codeTtlMs'],
      [{ provider, secret: testSecret, policies: { unknown: 1 } }, 'policies'],
      [{ provider, secret: testSecret, defaultSender: 'A sender name too long' }, 'defaultSender'],
      [{ provider, secret: testSecret, identityNumberPatterns: { bvn: '^\\d{11}$' } }, 'identityNumberPatterns.bvn'],
      [{ provider, secret: testSecret, identityNumberPatterns: { passport: /x/ } }, 'identityNumberPatterns'],
      [{ provider, secret: testSecret, clock: { now: 5 } }, 'clock'],
    ];
    for (const [options, field] of cases) {
      let error: unknown;
      try {
        createVerikit(options as never);
      } catch (caught) {
        error = caught;
      }
      expect(InvalidInputError.isInstance(error) && error.field).toBe(field);
      expect((error as Error).message).not.toContain('short');
    }
  });
});

describe('the engine secret', () => {
  const provider = createTestProviderV1();
  const messageOf = (secret: unknown) => {
    try {
      createVerikit({ provider, secret } as never);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('expected a refusal');
  };

  it('says what is wrong and what a secret must be: 32 characters, VERIKIT_SECRET, never "required" for a number', () => {
    expect(messageOf(undefined)).toMatch(
      /^secret is required: a random string of 32 characters or more, such as process\.env\.VERIKIT_SECRET/,
    );
    expect(messageOf(12_345_678)).toMatch(/^secret must be a random string of 32 characters or more/);
    expect(messageOf('short')).toMatch(/^secret must be at least 32 characters: .*VERIKIT_SECRET/);
    expect(messageOf(' '.repeat(32))).toMatch(/^secret must not be blank or a few characters repeated/);
    expect(() => createVerikit({ provider, secret: testSecret })).not.toThrow();
  });

  it('docs/logging.md: silentLogger comes from @verikit/core, as createVerikit does', () => {
    expect(() => createVerikit({ provider, secret: testSecret, logger: silentLogger })).not.toThrow();
    expect(Object.keys(silentLogger).sort()).toEqual(['debug', 'error', 'info', 'warn']);
  });
});

describe('properties of input validation', () => {
  it('any string of + and digits as a USSD number is accepted exactly when it is a valid mobile number, otherwise refused naming phoneNumber', async () => {
    const { verikit } = setup({ policies: { maxSendsPerHour: 1_000_000 } });
    // The rule for USSD: `+` and digits, valid for its country by libphonenumber-js's full metadata, and a mobile.
    const isValid = (value: string) => {
      const parsed = /^\+\d{1,18}$/.test(value) ? parsePhoneNumberFromString(value) : undefined;
      return parsed?.isValid() === true && ['MOBILE', 'FIXED_LINE_OR_MOBILE'].includes(parsed.getType() ?? '');
    };
    const e164Like = fc.oneof(
      fc.stringMatching(/^\+234[789][01]\d{7,9}$/), // mostly valid Nigerian mobiles, some of the wrong length
      fc.stringMatching(/^\+1[2-9]\d{2}[2-9]\d{5,7}$/), // North American numbers, valid or one digit short/long
      fc
        .tuple(
          fc.constantFrom('+234', '+1', '+44', '+27', '+91', '+254', '+0', '+999'),
          fc.stringMatching(/^\d{4,14}$/),
        )
        .map(([cc, rest]) => cc + rest),
      fc.stringMatching(/^\+\d{0,18}$/),
    );
    const hostile = fc.oneof(fc.string(), fc.stringMatching(/^[0-9a-z]{0,20}$/));
    let accepted = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(fc.oneof(e164Like, hostile), async (phoneNumber) => {
        const view = await verikit.start({ kind: 'ussd', phoneNumber }).catch((error: unknown) => {
          expect(InvalidInputError.isInstance(error) && error.field).toBe('phoneNumber');
          return undefined;
        });
        expect(view !== undefined).toBe(isValid(phoneNumber));
        if (view) {
          expect(view.status).toBe('awaiting-dial');
          accepted += 1;
        } else {
          refused += 1;
        }
      }),
      { numRuns: 400 },
    );
    // Both directions were exercised: a validator refusing (or accepting) everything fails above.
    expect(accepted).toBeGreaterThan(10);
    expect(refused).toBeGreaterThan(10);
  });

  it('identity numbers are accepted exactly when they are 11 digits', async () => {
    const { verikit } = setup({ policies: { maxSendsPerHour: 1_000_000 } });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string(), fc.stringMatching(/^\d{9,13}$/)),
        fc.constantFrom('bvn', 'nin'),
        async (number, idType) => {
          const accepted = await verikit.start({ kind: 'identity', idType: idType as 'bvn', number }).then(
            () => true,
            (error: unknown) => {
              expect(InvalidInputError.isInstance(error) && error.field).toBe('number');
              return false;
            },
          );
          expect(accepted).toBe(/^\d{11}$/.test(number));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('codes are accepted exactly when they are 4 to 10 digits; anything else leaves the flow unchanged', async () => {
    const { verikit, raw } = setup();
    const { id } = await verikit.start({ kind: 'identity', idType: 'bvn', number: '12345678901' });
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.stringMatching(/^\d{1,12}$/)), async (code) => {
        fc.pre(!/^\d{4,10}$/.test(code));
        const before = raw();
        const error = await verikit.send(id, { type: 'submit-code', code }).catch((caught: unknown) => caught);
        expect(VerikitError.isInstance(error) && error.field).toBe('event.code');
        expect(raw()).toBe(before);
      }),
      { numRuns: 300 },
    );
  });
});
