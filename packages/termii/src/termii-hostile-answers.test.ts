import { callContext } from '@verikit/testing';
import { runWireContract } from '@verikit/testing/contract';
import { createTermiiProvider } from './create-termii-provider.js';

// Finding 6 and issue 17, item 8 (maybe sent), and finding 11 (check answers read by their documented type), on
// Termii's wire.
runWireContract('termii', {
  providerAt: (url) =>
    createTermiiProvider({ apiKey: 'TLsecretTermiiKey0123456789', baseUrl: url, senderId: 'Acme', timeout: 2000 }),
  lateSendAnswer: '{"pinId":"late","code":"ok"}',
  serverErrorAnswer: '{"code":"fail","message":"error"}',
  requestId: 'pin-1',
  wrongTypedCheckAnswers: [
    ['{"pinId":"pin-1","verified":0}', 'verified'],
    ['{"pinId":"pin-1","verified":"yes"}', 'verified'],
    ['{"pinId":"pin-1","verified":null}', 'verified'],
  ],
  notValidCheckAnswer: '{"pinId":"pin-1","verified":"False"}',
  // Termii's sender ids: 3 to 11 letters or digits.
  refusedInputs: [
    [
      'phone.send',
      'from',
      (p) => p.phone!.send({ phoneNumber: '+2348031110008', channel: 'sms', from: 'AB' }, callContext()),
    ],
    [
      'phone.send',
      'from',
      (p) => p.phone!.send({ phoneNumber: '+2348031110008', channel: 'sms', from: 'Acme & Co' }, callContext()),
    ],
  ],
});
