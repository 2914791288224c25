import { baseUrlSchema, resolveProviderSettings, secretSchema, type ProviderSettingsOf } from '@verikit/provider-utils';

// The app id is checked as the secret key is (visible ASCII): it is not a secret, but it names the account.
const dojahEnvironment = {
  appId: { variable: 'DOJAH_APP_ID', schema: secretSchema },
  secretKey: { variable: 'DOJAH_SECRET_KEY', schema: secretSchema },
  baseUrl: { variable: 'DOJAH_BASE_URL', schema: baseUrlSchema, fallback: 'https://api.dojah.io' },
} as const;

/** Settings with defaults applied; credentials and address read at each call. */
export type ResolvedDojahSettings = ProviderSettingsOf<typeof dojahEnvironment>;

/** Validates settings, or throws an `InvalidInputError` naming the setting (values are never echoed). */
export function resolveDojahSettings(settings: unknown): ResolvedDojahSettings {
  const { readers, transport } = resolveProviderSettings(settings, {
    name: 'dojah',
    environment: dojahEnvironment,
    options: {},
  });
  return { ...readers, ...transport };
}
