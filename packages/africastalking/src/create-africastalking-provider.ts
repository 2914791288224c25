import { parseInput, parseProviderInputV1, smsSendInputSchemaV1, type ProviderV1 } from '@verikit/provider';
import { createAfricasTalkingClient } from './africastalking-client.js';
import { dialInCapability } from './dial-in-capability.js';
import { parseAfricasTalkingDeliveryReport } from './delivery-report.js';
import { africasTalkingSenderSchema } from './africastalking-format.js';
import type { AfricasTalkingProviderSettings } from './africastalking-settings.js';
import { resolveAfricasTalkingSettings } from './africastalking-settings-schema.js';

/**
 * Creates the Africa's Talking provider: SMS on its messaging API (`POST /version1/messaging`, form-encoded,
 * the API key in the `apiKey` header; each recipient's status code becomes a typed error). Africa's Talking
 * has no verification API: no phone, USSD OTP or BVN/NIN capability. Its USSD is the other way round (the
 * network calls the application when a user dials): with `ussdServiceCode` the provider takes dial-in flows
 * (`dialIn`), and `parseUssdSession` and `ussdResponse` read and answer a session by hand.
 *
 * Every setting may come from the environment (`AFRICASTALKING_USERNAME`, `AFRICASTALKING_API_KEY`,
 * `AFRICASTALKING_SENDER_ID`, `AFRICASTALKING_BASE_URL`), read at each call; the username `sandbox` selects
 * the sandbox API. `AFRICASTALKING_USSD_SERVICE_CODE` is read once, when the provider is created. Bad settings throw an `InvalidInputError` naming the setting.
 *
 * @example
 * const provider = createAfricasTalkingProvider({ senderId: 'Acme' }); // AFRICASTALKING_USERNAME and _API_KEY from the environment
 */
export function createAfricasTalkingProvider(settings: AfricasTalkingProviderSettings = {}): ProviderV1 {
  const resolved = resolveAfricasTalkingSettings(settings);
  const client = createAfricasTalkingClient(resolved);
  const provider: ProviderV1 = {
    specificationVersion: 'v1',
    name: resolved.name,
    sms: {
      // Without a sender, Africa's Talking sends from its own default one: no call needs `from`.
      async send(input, context) {
        const parsed = parseProviderInputV1(smsSendInputSchemaV1, input);
        const from =
          parsed.from === undefined ? resolved.senderId() : parseInput(africasTalkingSenderSchema, parsed.from, 'from');
        const form = { to: parsed.to, message: parsed.message, ...(from === undefined ? {} : { from }) };
        const recipient = await client.sendSms(form, context, 'sms.send');
        return { messageId: recipient.messageId };
      },
    },
    // SMS delivery reports as delivery receipts (docs/providers/africastalking.md, "Delivery reports").
    webhooks: { parse: parseAfricasTalkingDeliveryReport },
    ...(resolved.ussdServiceCode === undefined ? {} : { dialIn: dialInCapability(resolved.ussdServiceCode) }),
  };
  return Object.freeze(provider);
}
