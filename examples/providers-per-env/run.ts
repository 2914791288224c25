/**
 * Runs the same signup flow on the gateway, Termii and Twilio (over their fakes), and a
 * composition of Twilio and Termii, changing only the environment between runs:
 * `pnpm tsx --conditions=@verikit/source examples/providers-per-env/run.ts`.
 *
 * @module
 */
import { startGatewayFake } from '@verikit/gateway/fake';
import { startTermiiFake } from '@verikit/termii/fake';
import { startTwilioFake } from '@verikit/twilio/fake';
import { providerFromEnv } from './provider-from-env.js';
import { signup } from './signup.js';

/** Starts the three local servers and returns the environment of each provider, and where codes land. */
export async function startLocalServices() {
  const gateway = await startGatewayFake();
  const termii = await startTermiiFake();
  const twilio = await startTwilioFake();
  const environments: Record<string, Record<string, string>> = {
    gateway: {
      VERIKIT_PROVIDER: 'gateway',
      GATEWAY_API_KEY: gateway.apiKey,
      GATEWAY_BASE_URL: gateway.baseUrl,
      GATEWAY_USSD_BASE_URL: gateway.ussdBaseUrl,
      GATEWAY_SENDER: 'Acme',
    },
    termii: {
      VERIKIT_PROVIDER: 'termii',
      TERMII_API_KEY: termii.apiKey,
      TERMII_BASE_URL: termii.baseUrl,
      TERMII_SENDER_ID: 'Acme',
    },
    twilio: {
      VERIKIT_PROVIDER: 'twilio',
      TWILIO_ACCOUNT_SID: twilio.settings.accountSid,
      TWILIO_AUTH_TOKEN: twilio.settings.authToken,
      TWILIO_VERIFY_SERVICE_SID: twilio.settings.verifyServiceSid,
      TWILIO_VERIFY_BASE_URL: twilio.settings.verifyBaseUrl,
      TWILIO_API_BASE_URL: twilio.settings.apiBaseUrl,
    },
  };
  environments['composed'] = { ...environments['termii']!, ...environments['twilio']!, VERIKIT_PROVIDER: 'composed' };
  const lastCode = (phoneNumber: string) =>
    gateway.lastCode(phoneNumber) ?? twilio.lastCode(phoneNumber) ?? termii.lastCode(phoneNumber);
  const close = async () => {
    await Promise.all([gateway.close(), termii.close(), twilio.close()]);
  };
  return { environments, lastCode, gateway, termii, twilio, close };
}

/** Runs the signup once per provider; returns each outcome. */
export async function runAll(): Promise<Record<string, string>> {
  const services = await startLocalServices();
  const outcomes: Record<string, string> = {};
  try {
    let index = 0;
    for (const [name, environment] of Object.entries(services.environments)) {
      const saved = { ...process.env };
      Object.assign(process.env, environment);
      try {
        const phoneNumber = `+23480312${String(40000 + index++)}`;
        outcomes[name] = await signup(providerFromEnv(), phoneNumber, async (to) => services.lastCode(to)!);
      } finally {
        for (const key of Object.keys(environment)) if (saved[key] === undefined) delete process.env[key];
        Object.assign(process.env, saved);
      }
    }
  } finally {
    await services.close();
  }
  return outcomes;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const [name, outcome] of Object.entries(await runAll())) console.log(`${name.padEnd(9)} ${outcome}`);
}
