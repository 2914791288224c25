import { CapabilityError } from './capability-error.js';
import { ProviderAuthenticationError } from './provider-authentication-error.js';
import { ProviderUnavailableError } from './provider-unavailable-error.js';

/**
 * True when an error proves the provider sent nothing: a capability or channel it lacks (no request was
 * made), credentials it refused (it answered 401/403 and sent nothing), a request that never reached it
 * (connection refused, DNS failure), or an answer that says the call failed (408, 429, 500, 501, 503: a
 * `ProviderUnavailableError` whose `maybeSent` is false). Everything else may have followed a send: a
 * timeout, a dropped connection, a 502/504 from a gateway in front of the provider, a malformed success, any
 * error of unknown origin.
 *
 * The one rule for "maybe sent" (docs/decisions/0920-maybe-sent.md): the engine skips a failed send's
 * cooldown only when this is true, and `withFailover` moves to the next provider only when this is true.
 */
export function isProvablyUnsent(error: unknown): boolean {
  if (CapabilityError.isInstance(error) || ProviderAuthenticationError.isInstance(error)) return true;
  return ProviderUnavailableError.isInstance(error) && (error as { maybeSent?: unknown }).maybeSent === false;
}
