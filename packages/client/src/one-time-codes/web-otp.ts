/** What a browser with the WebOTP API gives `navigator.credentials.get({ otp })`: an `OTPCredential`. */
interface OtpCredentialLike {
  readonly code?: unknown;
}

interface CredentialsWithOtp {
  get(options: { otp: { transport: string[] }; signal?: AbortSignal }): Promise<OtpCredentialLike | null>;
}

/** The browser's globals this reads (the package compiles without the DOM's types). */
const page = globalThis as { OTPCredential?: unknown; navigator?: { credentials?: Partial<CredentialsWithOtp> } };

/**
 * Whether this browser offers the WebOTP API (`OTPCredential`, Chrome on Android): a code sent by SMS in the
 * origin-bound format (`@your.site #123456` as the message's last line) can then reach the page with the user's
 * one tap, and nowhere else.
 */
export function hasWebOtp(): boolean {
  return 'OTPCredential' in page && typeof page.navigator?.credentials?.get === 'function';
}

/**
 * Waits for the next code the browser reads from an SMS bound to this page's origin
 * (`navigator.credentials.get({ otp: { transport: ['sms'] }, signal })`): resolves with its digits, or undefined
 * when the browser has no WebOTP, the wait is aborted through `signal`, the user declines, or the browser gives
 * nothing usable (a code that is not 4 to 10 digits). Never rejects: the page's own field is the fallback.
 */
export async function receiveWebOtp(signal?: AbortSignal): Promise<string | undefined> {
  if (!hasWebOtp() || signal?.aborted === true) return undefined;
  const credentials = page.navigator!.credentials as CredentialsWithOtp;
  try {
    const credential = await credentials.get({
      otp: { transport: ['sms'] },
      ...(signal === undefined ? {} : { signal }),
    });
    const code = credential?.code;
    return typeof code === 'string' && /^\d{4,10}$/.test(code) ? code : undefined;
  } catch {
    // Aborted, declined, or not allowed here (an iframe without the otp-credentials permission): no code.
    return undefined;
  }
}
