import {
  CapabilityError,
  InvalidInputError,
  ProviderAuthenticationError,
  ProviderProtocolError,
  ProviderRejectedError,
  ProviderUnavailableError,
  requireCapabilityV1,
  VerikitError,
  type CapabilityNeedV1,
  type PhoneChannel,
  type RawWebhookV1,
  type ProviderEventV1,
  type ProviderV1,
} from '@verikit/provider';
import { afterAll, beforeAll, describe, expect, it, it as vitestIt, type TestContext } from 'vitest';
import { failureOf } from '../failure-of.js';
import { freshPhoneNumber } from '../fresh-phone-number.js';
import { magicNumberOf } from '../magic-number-of.js';
import { context, failureOrNull } from './contract-helpers.js';
import type { ContractIdentity } from './contract-identity.js';
import { dialInContract, type ContractDialIn } from './contract-dial-in.js';
import { templatesContract, type ContractTemplate, type ContractWhatsAppTemplates } from './contract-templates.js';

/** The operations the contract exercises. */
export type ContractOperation = 'ussd.initiate' | 'phone.send' | 'identity.sendOtp' | 'sms.send' | 'whatsapp.send';

/** The typed failures every provider must be able to report. */
export type ContractFailure = 'rejected' | 'unavailable' | 'authentication' | 'protocol';

/** Input fields a failure scenario asks the suite to use instead of the defaults. */
export interface ContractInputOverride {
  /** The phone number to use instead of the suite's own (a magic number). */
  readonly phoneNumber?: string;
  /** The BVN/NIN to use instead of the suite's own. */
  readonly number?: string;
}

/** A provider under contract, with the hooks the suite needs to observe and steer it. */
export interface ContractSubject {
  /** The provider under test, as a user would create it. */
  readonly provider: ProviderV1;
  /** The last code (or OTP) delivered to `phoneNumber` by the provider, as the user's phone would show it. */
  lastCode(phoneNumber: string): string | undefined | Promise<string | undefined>;
  /** The text of the last message delivered to `phoneNumber`. */
  lastMessage(phoneNumber: string): string | undefined | Promise<string | undefined>;
  /** A registered BVN and NIN, and the phone numbers their OTPs go to (for providers with the identity capability). */
  readonly identities?: {
    /** A BVN the provider knows, and the phone its OTP goes to (where the suite reads the OTP back). */
    readonly bvn: ContractIdentity;
    /** A NIN the provider knows, and the phone its OTP goes to. */
    readonly nin: ContractIdentity;
  };
  /**
   * Arranges for the next call of `operation` to fail with `failure`, and returns the input fields to use
   * for it (a magic number for an HTTP provider; nothing for a scriptable double).
   */
  fail(operation: ContractOperation, failure: ContractFailure): ContractInputOverride | Promise<ContractInputOverride>;
  /**
   * Acts as the user who dials the USSD code and enters the OTP (or fails to), and returns the event the
   * provider reports for it. For a webhook provider this is `webhooks.parse` of the real delivered webhook.
   */
  completeUssd?(phoneNumber: string, otp: string, status: 'success' | 'failed'): Promise<ProviderEventV1 | null>;
  /**
   * For a provider that sends delivery receipts: the channel whose code sends it reports, and the raw webhook
   * of the next receipt the provider (its fake) delivers, as received on a local server. Absent: the provider
   * sends no receipts, and the suite skips them.
   */
  readonly deliveryReports?: {
    /** The channel whose code sends the provider reports on. */
    readonly channel: PhoneChannel;
    /** The raw webhook of the next receipt, once it arrived. */
    next(): Promise<RawWebhookV1>;
  };
  /**
   * The provider was made with a message template for this locale and channel: a code sent in that locale must
   * arrive as `text(code)`. Absent for a provider that takes no templates (its service writes the text): the
   * template test is skipped, saying so.
   */
  readonly localized?: ContractTemplate;
  /**
   * The provider was made with approved WhatsApp templates per language (Twilio's `whatsappContentSids`): a WhatsApp
   * code sent in `locale` must arrive as `text(code)`, and one sent in `otherLocale`, which has no template of its
   * own, as the default template's `defaultText(code)` (never free text). Absent for a provider whose service
   * writes the WhatsApp message (Termii's Send WhatsApp Token, Twilio Verify): that test is skipped, saying so.
   */
  readonly whatsappTemplates?: ContractWhatsAppTemplates;
  /** For a provider with `dialIn`: plays the phone that dials its code (the suite skips dial-in without it). */
  readonly dialIn?: ContractDialIn;
  /** Called once after the suite: stop the fakes and servers the subject started. */
  cleanup?(): Promise<void>;
}

const errorClasses: Record<ContractFailure, { isInstance(error: unknown): boolean; name: string }> = {
  rejected: { isInstance: (error) => ProviderRejectedError.isInstance(error), name: 'ProviderRejectedError' },
  unavailable: { isInstance: (error) => ProviderUnavailableError.isInstance(error), name: 'ProviderUnavailableError' },
  authentication: {
    isInstance: (error) => ProviderAuthenticationError.isInstance(error),
    name: 'ProviderAuthenticationError',
  },
  protocol: { isInstance: (error) => ProviderProtocolError.isInstance(error), name: 'ProviderProtocolError' },
};

const retryable: Record<ContractFailure, boolean> = {
  rejected: false,
  unavailable: true,
  authentication: false,
  protocol: false,
};

/**
 * The provider contract: every capability's success path and typed failures, the same for every
 * provider. Call it at the top level of a vitest file.
 *
 * @example
 * runProviderContract('test double', async () => {
 *   const provider = createTestProviderV1();
 *   return { provider, lastCode: (to) => provider.lastCode(to), ... };
 * });
 */
export function runProviderContract(name: string, makeSubject: () => Promise<ContractSubject>): void {
  describe(`provider contract: ${name}`, () => {
    let subject: ContractSubject;
    beforeAll(async () => {
      subject = await makeSubject();
    });
    afterAll(async () => {
      await subject?.cleanup?.();
    });

    const inputs: Record<
      ContractOperation,
      (override: ContractInputOverride) => (provider: ProviderV1) => Promise<unknown>
    > = {
      'ussd.initiate': (override) => (provider) =>
        provider.ussd!.initiate({ phoneNumber: override.phoneNumber ?? freshPhoneNumber() }, context()),
      'phone.send': (override) => (provider) =>
        provider.phone!.send(
          { phoneNumber: override.phoneNumber ?? freshPhoneNumber(), channel: 'sms', from: 'Verikit' },
          context(),
        ),
      'identity.sendOtp': (override) => (provider) =>
        provider.identity!.sendOtp(
          { idType: 'bvn', number: override.number ?? subject.identities!.bvn.number, otp: '482913' },
          context(),
        ),
      'sms.send': (override) => (provider) =>
        provider.sms!.send(
          { from: 'Verikit', to: override.phoneNumber ?? freshPhoneNumber(), message: 'Welcome to verikit' },
          context(),
        ),
      'whatsapp.send': (override) => (provider) =>
        provider.whatsapp!.send(
          { phoneNumber: override.phoneNumber ?? freshPhoneNumber(), message: 'Welcome to verikit' },
          context(),
        ),
    };

    it('declares specification v1 and a name', () => {
      expect(subject.provider.specificationVersion).toBe('v1');
      expect(subject.provider.name).toMatch(/^[a-z][a-z0-9-]*$/);
    });

    const has = (capability: 'ussd' | 'phone' | 'identity' | 'sms' | 'whatsapp') =>
      subject.provider[capability] !== undefined;
    /** `it` for a capability's tests: skipped (and reported as skipped) when the provider lacks the capability. */
    const onlyWith =
      (capability: 'ussd' | 'phone' | 'identity') =>
      (title: string, run: (context: TestContext) => unknown): void =>
        void vitestIt(title, async (context) => {
          if (!has(capability)) context.skip();
          await run(context);
        });
    const absent = (need: CapabilityNeedV1) => () => {
      const error = failureOrNull(() => requireCapabilityV1(subject.provider, need));
      expect(CapabilityError.isInstance(error)).toBe(true);
    };

    describe('declared capabilities', () => {
      it('declares at least one capability, and each declared one is an object', () => {
        const declared = (['ussd', 'phone', 'identity', 'sms', 'whatsapp', 'webhooks'] as const).filter(
          (each) => subject.provider[each] !== undefined,
        );
        expect(declared.length).toBeGreaterThan(0);
        for (const each of declared) expect(typeof subject.provider[each]).toBe('object');
      });
      for (const capability of ['ussd', 'sms', 'whatsapp'] as const) {
        it(`${capability}: absent → requireCapabilityV1 throws a CapabilityError; present → it passes`, () => {
          if (has(capability))
            return expect(() => requireCapabilityV1(subject.provider, { capability, from: 'Verikit' })).not.toThrow();
          absent({ capability })();
        });
      }
      it('phone: absent → requireCapabilityV1 throws a CapabilityError', () => {
        if (has('phone'))
          return expect(() =>
            requireCapabilityV1(subject.provider, { capability: 'phone', channel: 'sms' }),
          ).not.toThrow();
        absent({ capability: 'phone', channel: 'sms' })();
      });
      it('identity: a type not declared → requireCapabilityV1 throws a CapabilityError', () => {
        for (const idType of ['bvn', 'nin'] as const) {
          if (subject.provider.identity?.types.includes(idType) === true)
            expect(() => requireCapabilityV1(subject.provider, { capability: 'identity', idType })).not.toThrow();
          else absent({ capability: 'identity', idType })();
        }
      });
    });

    describe('ussd', () => {
      const it = onlyWith('ussd');
      it('initiates: an OTP and a USSD code to show the user', async () => {
        const phoneNumber = freshPhoneNumber();
        const result = await subject.provider.ussd!.initiate({ phoneNumber }, context());
        expect(result.otp).toMatch(/^\d{4,10}$/);
        expect(result.ussdCode).toMatch(/^\*[\d*]+#$/);
      });
      it('reports the user dialling with the right OTP as a successful USSD_VERIFICATION', async () => {
        if (subject.completeUssd === undefined) return expect(subject.provider.webhooks).toBeUndefined();
        const phoneNumber = freshPhoneNumber();
        const { otp } = await subject.provider.ussd!.initiate({ phoneNumber }, context());
        await expect(subject.completeUssd(phoneNumber, otp, 'success')).resolves.toEqual({
          type: 'ussd-verification',
          phoneNumber,
          status: 'success',
        });
      });
      it('reports a failed dial as a failed USSD_VERIFICATION', async () => {
        if (subject.completeUssd === undefined) return expect(subject.provider.webhooks).toBeUndefined();
        const phoneNumber = freshPhoneNumber();
        const { otp } = await subject.provider.ussd!.initiate({ phoneNumber }, context());
        const wrong = otp === '0000' ? '1111' : '0000';
        await expect(subject.completeUssd(phoneNumber, wrong, 'failed')).resolves.toEqual({
          type: 'ussd-verification',
          phoneNumber,
          status: 'failed',
        });
      });
    });

    describe('phone', () => {
      const it = onlyWith('phone');
      it('offers the sms channel', () => {
        expect(subject.provider.phone!.channels).toContain('sms');
      });
      for (const channel of ['voice', 'whatsapp'] as const satisfies readonly PhoneChannel[]) {
        it(`${channel}: declared → a code is sent by it; not declared → a CapabilityError on channel, before any request`, async () => {
          const phoneNumber = freshPhoneNumber();
          const sending = subject.provider.phone!.send({ phoneNumber, channel, from: 'Verikit' }, context());
          if (subject.provider.phone!.channels.includes(channel)) {
            const { requestId } = await sending;
            expect(requestId.length).toBeGreaterThan(0);
            expect(await subject.lastCode(phoneNumber)).toMatch(/^\d{4,10}$/);
            return;
          }
          const error = await failureOf(sending);
          expect(CapabilityError.isInstance(error)).toBe(true);
          expect((error as CapabilityError).field).toBe('channel');
          absent({ capability: 'phone', channel })();
        });
      }
      it('a code we generate: accepted when customCode is declared, a CapabilityError on code otherwise', async () => {
        const phoneNumber = freshPhoneNumber();
        const sending = subject.provider.phone!.send(
          { phoneNumber, channel: 'sms', from: 'Verikit', code: '731902' },
          context(),
        );
        if (subject.provider.phone!.customCode === true) {
          const { requestId } = await sending;
          await expect(subject.provider.phone!.check({ requestId, code: '731902' }, context())).resolves.toMatchObject({
            valid: true,
          });
          return;
        }
        const error = await failureOf(sending);
        expect(CapabilityError.isInstance(error)).toBe(true);
        expect((error as CapabilityError).field).toBe('code');
        absent({ capability: 'phone', channel: 'sms', customCode: true })();
      });
      it('sends a code and accepts it once entered', async () => {
        const phoneNumber = freshPhoneNumber();
        const { requestId } = await subject.provider.phone!.send(
          { phoneNumber, channel: 'sms', from: 'Verikit' },
          context(),
        );
        expect(typeof requestId).toBe('string');
        expect(requestId.length).toBeGreaterThan(0);
        const code = await subject.lastCode(phoneNumber);
        expect(code).toMatch(/^\d{4,10}$/);
        await expect(subject.provider.phone!.check({ requestId, code: code! }, context())).resolves.toEqual({
          valid: true,
        });
      });
      it('says a wrong code is not valid', async () => {
        const phoneNumber = freshPhoneNumber();
        const { requestId } = await subject.provider.phone!.send(
          { phoneNumber, channel: 'sms', from: 'Verikit' },
          context(),
        );
        const code = (await subject.lastCode(phoneNumber))!;
        const wrong = code === '000000' ? '111111' : '000000';
        await expect(subject.provider.phone!.check({ requestId, code: wrong }, context())).resolves.toEqual({
          valid: false,
        });
      });
      it('gives each send its own requestId', async () => {
        const phoneNumber = freshPhoneNumber();
        const first = await subject.provider.phone!.send({ phoneNumber, channel: 'sms', from: 'Verikit' }, context());
        const second = await subject.provider.phone!.send({ phoneNumber, channel: 'sms', from: 'Verikit' }, context());
        expect(first.requestId).not.toBe(second.requestId);
      });
      it('channel plan: a resend on another declared channel names the first send, and the new code checks', async (test) => {
        const [first, second] = subject.provider.phone!.channels;
        if (second === undefined) return test.skip('the provider declares one channel: no plan to switch within');
        const phoneNumber = freshPhoneNumber();
        const sent = await subject.provider.phone!.send({ phoneNumber, channel: first!, from: 'Verikit' }, context());
        const resent = await subject.provider.phone!.send(
          { phoneNumber, channel: second, from: 'Verikit', resendOf: sent.requestId },
          context(),
        );
        const code = await subject.lastCode(phoneNumber);
        expect(code).toMatch(/^\d{4,10}$/);
        await expect(
          subject.provider.phone!.check({ requestId: resent.requestId, code: code! }, context()),
        ).resolves.toEqual({ valid: true });
      });
      it('locale: a send in a locale is accepted, and its code checks', async () => {
        const phoneNumber = freshPhoneNumber();
        const { requestId } = await subject.provider.phone!.send(
          { phoneNumber, channel: 'sms', from: 'Verikit', locale: 'fr' },
          context(),
        );
        const code = await subject.lastCode(phoneNumber);
        await expect(subject.provider.phone!.check({ requestId, code: code! }, context())).resolves.toEqual({
          valid: true,
        });
      });
      templatesContract(() => subject);
      it('rejects a check of an unknown requestId with ProviderRejectedError', async () => {
        const error = await failureOf(
          subject.provider.phone!.check({ requestId: 'no-such-request', code: '123456' }, context()),
        );
        expect(ProviderRejectedError.isInstance(error)).toBe(true);
      });
    });

    describe('identity', () => {
      const it = onlyWith('identity');
      it('supports bvn and nin', () => {
        expect([...subject.provider.identity!.types].sort()).toEqual(['bvn', 'nin']);
      });
      for (const idType of ['bvn', 'nin'] as const) {
        it(`delivers our OTP to the phone registered for the ${idType.toUpperCase()}`, async () => {
          const identity = subject.identities![idType];
          const otp = idType === 'bvn' ? '604217' : '918273';
          await expect(
            subject.provider.identity!.sendOtp({ idType, number: identity.number, otp }, context()),
          ).resolves.toBeUndefined();
          expect(await subject.lastCode(identity.phoneNumber)).toBe(otp);
        });
      }
    });

    describe('messages', () => {
      it('sends an SMS', async (test) => {
        if (!has('sms')) test.skip('the provider has no sms capability');
        const to = freshPhoneNumber();
        const result = await subject.provider.sms!.send(
          { from: 'Verikit', to, message: 'Your order shipped' },
          context(),
        );
        expect(typeof result).toBe('object');
        expect(await subject.lastMessage(to)).toBe('Your order shipped');
      });
      it('sends a WhatsApp message', async (test) => {
        if (!has('whatsapp')) test.skip('the provider has no whatsapp capability');
        const phoneNumber = freshPhoneNumber();
        const result = await subject.provider.whatsapp!.send({ phoneNumber, message: 'Your order shipped' }, context());
        expect(typeof result).toBe('object');
        expect(await subject.lastMessage(phoneNumber)).toBe('Your order shipped');
      });
    });

    describe('typed failures', () => {
      const operations: ContractOperation[] = [
        'ussd.initiate',
        'phone.send',
        'identity.sendOtp',
        'sms.send',
        'whatsapp.send',
      ];
      for (const operation of operations) {
        for (const failure of ['rejected', 'unavailable', 'authentication', 'protocol'] as const) {
          it(`${operation}: ${failure} → ${errorClasses[failure].name}`, async (test) => {
            if (!has(operation.split('.')[0] as 'ussd'))
              test.skip(`the provider has no ${operation.split('.')[0]} capability`);
            const override = await subject.fail(operation, failure);
            const error = await failureOf(inputs[operation](override)(subject.provider));
            expect(VerikitError.isInstance(error)).toBe(true);
            expect(errorClasses[failure].isInstance(error)).toBe(true);
            expect((error as VerikitError).isRetryable).toBe(retryable[failure]);
          });
        }
      }
    });

    describe('delivery receipts', () => {
      it('reports a delivered code as a delivery event for the id its send returned', async (test) => {
        const reports = subject.deliveryReports;
        if (reports === undefined || !has('phone'))
          return test.skip('the provider sends no delivery receipts for its codes');
        expect(subject.provider.webhooks).toBeDefined();
        const phoneNumber = freshPhoneNumber();
        const report = reports.next();
        const sent = await subject.provider.phone!.send({ phoneNumber, channel: reports.channel }, context());
        const event = subject.provider.webhooks!.parse(await report);
        expect(event).toMatchObject({ type: 'delivery', status: 'delivered' });
        expect([sent.messageId, sent.requestId]).toContain((event as { messageId: string }).messageId);
        // The event carries no number and no message text.
        expect(JSON.stringify(event)).not.toContain(phoneNumber.slice(1));
      });
    });

    describe('dial-in', () => {
      dialInContract(
        () => subject.provider,
        () => subject.dialIn,
      );
    });

    describe('webhooks', () => {
      it('parses a USSD_VERIFICATION body, ignores other events and refuses malformed ones', (test) => {
        const webhooks = subject.provider.webhooks;
        // A provider without USSD has no USSD result to parse; one with USSD reports results somehow.
        if (!has('ussd')) return test.skip('no USSD: the provider reports no USSD results');
        if (webhooks === undefined) return expect(subject.completeUssd).toBeDefined();
        const body = JSON.stringify({ event: 'USSD_VERIFICATION', phoneNumber: '+2348031200999', status: 'success' });
        expect(webhooks.parse({ body, headers: {} })).toEqual({
          type: 'ussd-verification',
          phoneNumber: '+2348031200999',
          status: 'success',
        });
        expect(
          webhooks.parse({
            body: JSON.stringify({ event: 'SOMETHING_ELSE', phoneNumber: '+2348031200999', status: 'success' }),
            headers: {},
          }),
        ).toBeNull();
        expect(
          InvalidInputError.isInstance(failureOrNull(() => webhooks.parse({ body: '{not json', headers: {} }))),
        ).toBe(true);
        expect(
          InvalidInputError.isInstance(
            failureOrNull(() => webhooks.parse({ body: JSON.stringify({ event: 'USSD_VERIFICATION' }), headers: {} })),
          ),
        ).toBe(true);
      });
    });
  });
}

/**
 * The magic behaviour each contract failure asks a verikit fake for, as the Termii, Twilio and gateway fakes name
 * them; a fake that names one otherwise gives its own (`{ ...contractFailureBehaviours, rejected: 'invalid-number' }`).
 */
export const contractFailureBehaviours = Object.freeze({
  /** A refusal of the request (a 400). */
  rejected: 'rejected',
  /** The service failing (a 500). */
  unavailable: 'server-error',
  /** Credentials refused (a 401). */
  authentication: 'unauthorized',
  /** An answer that is not the documented JSON (an HTML page). */
  protocol: 'not-json',
} as const satisfies Record<ContractFailure, string>);

/**
 * A {@link ContractSubject}'s `fail` for a provider over a fake with magic numbers: each failure is asked for by the
 * number in `table` whose behaviour `behaviours` names for it.
 *
 * @example
 * fail: failByMagicNumber(termiiMagicNumbers, contractFailureBehaviours),
 */
export function failByMagicNumber<Behaviour extends string>(
  table: Readonly<Record<string, Behaviour>>,
  behaviours: Readonly<Record<ContractFailure, Behaviour>>,
): ContractSubject['fail'] {
  return (_operation, failure) => ({ phoneNumber: magicNumberOf(table, behaviours[failure]) });
}
