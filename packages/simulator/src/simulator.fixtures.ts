import type { ScenarioInput } from './scenario-schema.js';

/** A scenario written apart from the shipped ones: another country, operators, provider, currency and rates. */
export const kenyaScenario = {
  name: 'kenya-test',
  description: 'Kenyan numbers on Twilio Verify, for tests: figures made up, shaped unlike the shipped scenarios.',
  seed: 7,
  flows: 100,
  arrivals: { overSeconds: 600 },
  plan: { channels: ['sms', 'voice'] },
  engine: { guard: false },
  providers: [{ name: 'twilio', sender: 'Verikit' }],
  rates: {
    currency: 'KES',
    cards: [
      { provider: 'twilio', channel: 'sms', price: 1.2 },
      { provider: 'twilio', channel: 'voice', price: 3 },
    ],
  },
  operators: [
    {
      name: 'Safaricom',
      prefixes: ['+254711', '+254722', '+254790'],
      share: 65,
      whatsappPresence: 0.8,
      channels: {
        sms: { delivery: 0.98, delay: 4 },
        voice: { delivery: 0.9, delay: 20, answer: 0.8 },
      },
    },
    {
      name: 'Airtel-KE',
      prefixes: ['+254733', '+254750'],
      share: 35,
      channels: { sms: { delivery: 0.9, delay: { median: 10, p95: 120 } } },
    },
  ],
  people: {
    readAndType: { median: 15, p95: 45 },
    typo: 0.1,
    patience: 300,
    resend: { after: 45, max: 1, otherChannel: 1 },
  },
} satisfies ScenarioInput;
