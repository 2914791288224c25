import { callContext } from '@verikit/testing';
import { runWireContract } from '@verikit/testing/contract';
import { createTwilioProvider } from './create-twilio-provider.js';

// Finding 6 and issue 17, item 8 (maybe sent), and finding 11 (check answers read by their documented type), on
// Twilio's wire.
const sid = (prefix: string) => `${prefix}${'0'.repeat(32)}`;
runWireContract('twilio', {
  providerAt: (url) =>
    createTwilioProvider({
      accountSid: sid('AC'),
      authToken: 'twilio-auth-token-0123456789',
      verifyServiceSid: sid('VA'),
      verifyBaseUrl: url,
      apiBaseUrl: url,
      timeout: 2000,
    }),
  lateSendAnswer: `{"sid":"${sid('VE')}"}`,
  serverErrorAnswer: '{"code":20500,"message":"Internal Server Error","status":500}',
  requestId: sid('VE'),
  wrongTypedCheckAnswers: [
    ['{"status":1,"valid":true}', 'status'],
    ['{"status":"approved","valid":"false"}', 'valid'],
    ['{"status":"pending","valid":0}', 'valid'],
  ],
  notValidCheckAnswer: '{"status":"pending","valid":false}',
  refusedInputs: [
    // A numeric sender is an E.164 number on Twilio.
    ['sms.send', 'from', (p) => p.sms!.send({ from: '12345', to: '+2348031120010', message: 'x' }, callContext())],
    // Twilio's own `whatsapp:` prefix is the provider's to add, never the caller's.
    [
      'whatsapp.send',
      'phoneNumber',
      (p) => p.whatsapp!.send({ phoneNumber: 'whatsapp:+2348031120010', message: 'x' }, callContext()),
    ],
  ],
});
