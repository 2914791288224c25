import { InvalidInputError, type DialInCapabilityV1 } from '@verikit/provider';
import { parseUssdSession, ussdAnswer } from './ussd-session.js';

/**
 * Dial-in on Africa's Talking's USSD: a session request (form-encoded `sessionId`, `serviceCode`, `phoneNumber`,
 * `networkCode`, `text`) is read with {@link parseUssdSession}; one for another service code is refused, since
 * several codes may share a callback URL. The answer is `CON …`/`END …` as `text/plain`.
 */
export function dialInCapability(serviceCode: string): DialInCapabilityV1 {
  return Object.freeze({
    serviceCode,
    parseSession({ body }) {
      const session = parseUssdSession(body);
      if (session.serviceCode !== serviceCode)
        throw new InvalidInputError([{ field: 'serviceCode', message: "is not this application's service code" }]);
      return { sessionId: session.sessionId, phoneNumber: session.phoneNumber, text: session.text };
    },
    answer: (kind, screen) => ({ body: ussdAnswer(kind, screen), contentType: 'text/plain; charset=utf-8' }),
  } satisfies DialInCapabilityV1);
}
