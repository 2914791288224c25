import { CapabilityError, ProviderAuthenticationError, ProviderUnavailableError } from '@verikit/provider';

/**
 * True when an error proves the provider sent nothing, so another provider may be tried without
 * risking a second message: a capability or channel it lacks (no request was made), credentials it
 * refused (it answered 401/403 and sent nothing), or a request that never reached it
 * (`ProviderUnavailableError` with `requestSent: false`: connection refused, DNS failure). A timeout, a
 * dropped connection, a 5xx, a rejection or any other error may have followed a send: never failed over.
 */
export function isProvablyUnsent(error: unknown): boolean {
  if (CapabilityError.isInstance(error) || ProviderAuthenticationError.isInstance(error)) return true;
  return ProviderUnavailableError.isInstance(error) && error.requestSent === false;
}
