import { expect, it } from 'vitest';
import {
  CapabilityError,
  InvalidInputError,
  requireCapabilityV1,
  type ProviderV1,
  type RawWebhookV1,
} from '@verikit/provider';
import { failureOrNull } from './contract-helpers.js';

/** How the suite dials a dial-in provider's code: the subject plays the phone and hands back what the carrier sent. */
export interface ContractDialIn {
  /**
   * Dials `code` (the service code with a reference in it) from `phoneNumber`, and returns the carrier's session
   * request exactly as the application received it.
   */
  dial(phoneNumber: string, code: string): Promise<RawWebhookV1>;
}

/**
 * The dial-in capability's contract: the session request of a real dial reads back as the dialling number and the
 * reference typed, a tampered one is an `InvalidInputError`, and the answer is `CON`/`END` text. Skipped, saying
 * so, for a provider without `dialIn`.
 */
export function dialInContract(provider: () => ProviderV1, dialler: () => ContractDialIn | undefined): void {
  it('dial-in: a dial reads back as the dialling number and the reference; a tampered request is refused', async (test) => {
    const dialIn = provider().dialIn;
    if (dialIn === undefined) {
      const refused = failureOrNull(() => requireCapabilityV1(provider(), { capability: 'dial-in' }));
      expect(CapabilityError.isInstance(refused)).toBe(true);
      return test.skip('the provider has no dialIn capability: it takes no dial-in flows');
    }
    const phone = dialler();
    expect(phone, 'a subject with dialIn must give `dialIn.dial` to play the phone').toBeDefined();
    expect(dialIn.serviceCode).toMatch(/^\*[0-9*]+#$/);
    const code = `${dialIn.serviceCode.slice(0, -1)}*583921#`;
    const raw = await phone!.dial('+2348031200999', code);
    expect(dialIn.parseSession(raw)).toMatchObject({ phoneNumber: '+2348031200999', text: '583921' });
    expect(dialIn.parseSession(raw).sessionId).toMatch(/^[\x21-\x7e]{1,200}$/);
    expect(InvalidInputError.isInstance(failureOrNull(() => dialIn.parseSession({ ...raw, body: 'x' })))).toBe(true);
    const answer = dialIn.answer('END', 'Thank you');
    expect([answer.body.startsWith('END '), answer.contentType.startsWith('text/plain')]).toEqual([true, true]);
  });
}
