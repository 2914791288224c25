import { baseUrlSchema, resolveProviderSettings, secretSchema, type ProviderSettingsOf } from '@verikit/provider-utils';
import { z } from 'zod';
import { africasTalkingSenderSchema, usernameSchema } from './africastalking-format.js';

/** Where the official SDK sends a live application's requests, and the sandbox app's. */
export const africasTalkingBaseUrls = Object.freeze({
  /** A live application's API. */
  live: 'https://api.africastalking.com',
  /** The sandbox app's API (username `sandbox`). */
  sandbox: 'https://api.sandbox.africastalking.com',
});

/** A USSD service code as Africa's Talking writes it: `*384*1234#`. */
const serviceCodeSchema = z
  .string({ error: 'must be a string' })
  .regex(/^\*\d{1,6}(?:\*\d{1,6}){0,4}#$/, { error: 'must be a USSD service code such as *384*1234#' });

/** The settings that come from the environment when not passed, read at each call. */
const africasTalkingEnvironment = {
  username: { variable: 'AFRICASTALKING_USERNAME', schema: usernameSchema },
  apiKey: { variable: 'AFRICASTALKING_API_KEY', schema: secretSchema },
  senderId: { variable: 'AFRICASTALKING_SENDER_ID', schema: africasTalkingSenderSchema, optional: true },
  // Absent: the sandbox or live address, by the username.
  baseUrl: { variable: 'AFRICASTALKING_BASE_URL', schema: baseUrlSchema, optional: true },
  // Read once, below: whether the provider has a dialIn capability is decided when it is created.
  ussdServiceCode: { variable: 'AFRICASTALKING_USSD_SERVICE_CODE', schema: serviceCodeSchema, optional: true },
} as const;

/** How {@link resolveProviderSettings} reads these settings. */
const africasTalkingSettings = { name: 'africastalking', environment: africasTalkingEnvironment, options: {} };

/** Settings with defaults applied; the credentials, sender and address read at each call. */
export type ResolvedAfricasTalkingSettings = Omit<
  ProviderSettingsOf<typeof africasTalkingEnvironment>,
  'baseUrl' | 'ussdServiceCode'
> & {
  /** The USSD service code of the dial-in capability; undefined: the provider has none. */
  readonly ussdServiceCode: string | undefined;
  /** The base URL given, else the sandbox or live one by the username. */
  readonly baseUrl: () => string;
};

/** Validates settings, or throws an `InvalidInputError` naming the setting (values are never echoed). */
export function resolveAfricasTalkingSettings(settings: unknown): ResolvedAfricasTalkingSettings {
  const { readers, transport } = resolveProviderSettings(settings, africasTalkingSettings);
  const { username, apiKey, senderId, baseUrl: givenBaseUrl, ussdServiceCode } = readers;
  const baseUrl = () =>
    givenBaseUrl() ??
    (username().toLowerCase() === 'sandbox' ? africasTalkingBaseUrls.sandbox : africasTalkingBaseUrls.live);
  return { username, apiKey, senderId, baseUrl, ussdServiceCode: ussdServiceCode(), ...transport };
}
