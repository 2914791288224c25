import { createGatewayProvider } from '@verikit/gateway';
import type { ProviderV1 } from '@verikit/provider';
import { composeProviders, withFailover } from '@verikit/provider-utils';
import { createTermiiProvider } from '@verikit/termii';
import { createTwilioProvider } from '@verikit/twilio';

/**
 * The one place that chooses the provider, from `VERIKIT_PROVIDER`: every provider reads its own settings
 * (`GATEWAY_*`, `TERMII_*`, `TWILIO_*`) from the environment, so switching is a change of environment only.
 * `composed`: Twilio for phone verification with Termii as fallback, Termii for SMS and WhatsApp.
 */
export function providerFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): ProviderV1 {
  switch (env['VERIKIT_PROVIDER']) {
    case 'gateway':
      return createGatewayProvider();
    case 'termii':
      return createTermiiProvider();
    case 'twilio':
      return createTwilioProvider();
    case 'composed': {
      const termii = createTermiiProvider();
      return composeProviders({ phone: withFailover([createTwilioProvider(), termii]), sms: termii, whatsapp: termii });
    }
    default:
      throw new Error('set VERIKIT_PROVIDER to gateway, termii, twilio or composed');
  }
}
