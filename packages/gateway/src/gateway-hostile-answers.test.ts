import { runWireContract } from '@verikit/testing/contract';
import { createGatewayProvider } from './create-gateway-provider.js';

// Finding 6 and issue 17, item 8 (maybe sent), and finding 11 (check answers read by their documented type), on the
// gateway service's wire.
runWireContract('gateway', {
  providerAt: (url) =>
    createGatewayProvider({
      apiKey: 'gateway-secret-key-0123456789',
      baseUrl: url,
      ussdBaseUrl: url,
      defaultSender: 'Acme',
      timeout: 2000,
    }),
  lateSendAnswer: '{"success":true,"data":{"requestId":"late"}}',
  serverErrorAnswer: '{"success":false,"message":"Error sending OTP","code":0,"data":null}',
  requestId: 'req-1',
  wrongTypedCheckAnswers: [
    ['{"success":true,"data":{"valid":"false"}}', 'data.valid'],
    ['{"success":true,"data":{"valid":0}}', 'data.valid'],
    ['{"success":true,"data":{"verified":null}}', 'data.verified'],
  ],
  notValidCheckAnswer: '{"success":true,"data":{"valid":false}}',
});
