import {
  InvalidInputError,
  ProviderAuthenticationError,
  ProviderProtocolError,
  ProviderRejectedError,
  ProviderUnavailableError,
  silentLogger,
  VerikitError,
  type ProviderCallContextV1,
  type ProviderEventV1,
  type ProviderV1,
} from '@verikit/provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failureOf } from '../failure-of.js';
import { freshPhoneNumber } from '../fresh-phone-number.js';

/** The operations the contract exercises. */
export type ContractOperation = 'ussd.initiate' | 'phone.send' | 'identity.sendOtp' | 'sms.send' | 'whatsapp.send';

/** The typed failures every provider must be able to report. */
export type ContractFailure = 'rejected' | 'unavailable' | 'authentication' | 'protocol';

/** Input fields a failure scenario asks the suite to use instead of the defaults. */
export interface ContractInputOverride {
  readonly phoneNumber?: string;
  readonly number?: string;
}

/** A provider under contract, with the hooks the suite needs to observe and steer it. */
export interface ContractSubject {
  readonly provider: ProviderV1;
  /** The last code (or OTP) delivered to `phoneNumber` by the provider, as the user's phone would show it. */
  lastCode(phoneNumber: string): string | undefined | Promise<string | undefined>;
  /** The text of the last message delivered to `phoneNumber`. */
  lastMessage(phoneNumber: string): string | undefined | Promise<string | undefined>;
  /** A registered BVN and NIN, and the phone numbers their OTPs go to. */
  readonly identities: { readonly bvn: { number: string; phoneNumber: string }; readonly nin: { number: string; phoneNumber: string } };
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
  cleanup?(): Promise<void>;
}

const errorClasses: Record<ContractFailure, { isInstance(error: unknown): boolean; name: string }> = {
  rejected: { isInstance: (error) => ProviderRejectedError.isInstance(error), name: 'ProviderRejectedError' },
  unavailable: { isInstance: (error) => ProviderUnavailableError.isInstance(error), name: 'ProviderUnavailableError' },
  authentication: { isInstance: (error) => ProviderAuthenticationError.isInstance(error), name: 'ProviderAuthenticationError' },
  protocol: { isInstance: (error) => ProviderProtocolError.isInstance(error), name: 'ProviderProtocolError' },
};

const retryable: Record<ContractFailure, boolean> = { rejected: false, unavailable: true, authentication: false, protocol: false };

let sequence = 0;
function context(): ProviderCallContextV1 {
  return { signal: new AbortController().signal, idempotencyKey: `contract:effect:${++sequence}`, logger: silentLogger };
}

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

    const inputs: Record<ContractOperation, (override: ContractInputOverride) => (provider: ProviderV1) => Promise<unknown>> = {
      'ussd.initiate': (override) => (provider) => provider.ussd!.initiate({ phoneNumber: override.phoneNumber ?? freshPhoneNumber() }, context()),
      'phone.send': (override) => (provider) =>
        provider.phone!.send({ phoneNumber: override.phoneNumber ?? freshPhoneNumber(), channel: 'sms', from: 'Verikit' }, context()),
      'identity.sendOtp': (override) => (provider) =>
        provider.identity!.sendOtp({ idType: 'bvn', number: override.number ?? subject.identities.bvn.number, otp: '482913' }, context()),
      'sms.send': (override) => (provider) =>
        provider.sms!.send({ from: 'Verikit', to: override.phoneNumber ?? freshPhoneNumber(), message: 'Welcome to verikit' }, context()),
      'whatsapp.send': (override) => (provider) =>
        provider.whatsapp!.send({ phoneNumber: override.phoneNumber ?? freshPhoneNumber(), message: 'Welcome to verikit' }, context()),
    };

    it('declares specification v1 and a name', () => {
      expect(subject.provider.specificationVersion).toBe('v1');
      expect(subject.provider.name).toMatch(/^[a-z][a-z0-9-]*$/);
    });

    describe('ussd', () => {
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
        await expect(subject.completeUssd(phoneNumber, otp, 'success')).resolves.toEqual({ type: 'ussd-verification', phoneNumber, status: 'success' });
      });
      it('reports a failed dial as a failed USSD_VERIFICATION', async () => {
        if (subject.completeUssd === undefined) return expect(subject.provider.webhooks).toBeUndefined();
        const phoneNumber = freshPhoneNumber();
        const { otp } = await subject.provider.ussd!.initiate({ phoneNumber }, context());
        const wrong = otp === '0000' ? '1111' : '0000';
        await expect(subject.completeUssd(phoneNumber, wrong, 'failed')).resolves.toEqual({ type: 'ussd-verification', phoneNumber, status: 'failed' });
      });
    });

    describe('phone', () => {
      it('offers the sms channel', () => {
        expect(subject.provider.phone!.channels).toContain('sms');
      });
      it('sends a code and accepts it once entered', async () => {
        const phoneNumber = freshPhoneNumber();
        const { requestId } = await subject.provider.phone!.send({ phoneNumber, channel: 'sms', from: 'Verikit' }, context());
        expect(typeof requestId).toBe('string');
        expect(requestId.length).toBeGreaterThan(0);
        const code = await subject.lastCode(phoneNumber);
        expect(code).toMatch(/^\d{4,10}$/);
        await expect(subject.provider.phone!.check({ requestId, code: code! }, context())).resolves.toEqual({ valid: true });
      });
      it('says a wrong code is not valid', async () => {
        const phoneNumber = freshPhoneNumber();
        const { requestId } = await subject.provider.phone!.send({ phoneNumber, channel: 'sms', from: 'Verikit' }, context());
        const code = (await subject.lastCode(phoneNumber))!;
        const wrong = code === '000000' ? '111111' : '000000';
        await expect(subject.provider.phone!.check({ requestId, code: wrong }, context())).resolves.toEqual({ valid: false });
      });
      it('gives each send its own requestId', async () => {
        const phoneNumber = freshPhoneNumber();
        const first = await subject.provider.phone!.send({ phoneNumber, channel: 'sms', from: 'Verikit' }, context());
        const second = await subject.provider.phone!.send({ phoneNumber, channel: 'sms', from: 'Verikit' }, context());
        expect(first.requestId).not.toBe(second.requestId);
      });
      it('rejects a check of an unknown requestId with ProviderRejectedError', async () => {
        const error = await failureOf(subject.provider.phone!.check({ requestId: 'no-such-request', code: '123456' }, context()));
        expect(ProviderRejectedError.isInstance(error)).toBe(true);
      });
    });

    describe('identity', () => {
      it('supports bvn and nin', () => {
        expect([...subject.provider.identity!.types].sort()).toEqual(['bvn', 'nin']);
      });
      for (const idType of ['bvn', 'nin'] as const) {
        it(`delivers our OTP to the phone registered for the ${idType.toUpperCase()}`, async () => {
          const identity = subject.identities[idType];
          const otp = idType === 'bvn' ? '604217' : '918273';
          await expect(subject.provider.identity!.sendOtp({ idType, number: identity.number, otp }, context())).resolves.toBeUndefined();
          expect(await subject.lastCode(identity.phoneNumber)).toBe(otp);
        });
      }
    });

    describe('messages', () => {
      it('sends an SMS', async () => {
        const to = freshPhoneNumber();
        const result = await subject.provider.sms!.send({ from: 'Verikit', to, message: 'Your order shipped' }, context());
        expect(typeof result).toBe('object');
        expect(await subject.lastMessage(to)).toBe('Your order shipped');
      });
      it('sends a WhatsApp message', async () => {
        const phoneNumber = freshPhoneNumber();
        const result = await subject.provider.whatsapp!.send({ phoneNumber, message: 'Your order shipped' }, context());
        expect(typeof result).toBe('object');
        expect(await subject.lastMessage(phoneNumber)).toBe('Your order shipped');
      });
    });

    describe('typed failures', () => {
      const operations: ContractOperation[] = ['ussd.initiate', 'phone.send', 'identity.sendOtp', 'sms.send', 'whatsapp.send'];
      for (const operation of operations) {
        for (const failure of ['rejected', 'unavailable', 'authentication', 'protocol'] as const) {
          it(`${operation}: ${failure} → ${errorClasses[failure].name}`, async () => {
            const override = await subject.fail(operation, failure);
            const error = await failureOf(inputs[operation](override)(subject.provider));
            expect(VerikitError.isInstance(error)).toBe(true);
            expect(errorClasses[failure].isInstance(error)).toBe(true);
            expect((error as VerikitError).isRetryable).toBe(retryable[failure]);
          });
        }
      }
    });

    describe('webhooks', () => {
      it('parses a USSD_VERIFICATION body, ignores other events and refuses malformed ones', () => {
        const webhooks = subject.provider.webhooks;
        if (webhooks === undefined) return expect(subject.completeUssd).toBeDefined();
        const body = JSON.stringify({ event: 'USSD_VERIFICATION', phoneNumber: '+2348031200999', status: 'success' });
        expect(webhooks.parse({ body, headers: {} })).toEqual({ type: 'ussd-verification', phoneNumber: '+2348031200999', status: 'success' });
        expect(webhooks.parse({ body: JSON.stringify({ event: 'SOMETHING_ELSE', phoneNumber: '+2348031200999', status: 'success' }), headers: {} })).toBeNull();
        expect(InvalidInputError.isInstance(failureOrNull(() => webhooks.parse({ body: '{not json', headers: {} })))).toBe(true);
        expect(InvalidInputError.isInstance(failureOrNull(() => webhooks.parse({ body: JSON.stringify({ event: 'USSD_VERIFICATION' }), headers: {} })))).toBe(true);
      });
    });
  });
}

function failureOrNull(run: () => unknown): unknown {
  try {
    run();
    return null;
  } catch (error) {
    return error;
  }
}
