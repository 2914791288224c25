/**
 * The `tel:` link that dials a USSD code: `*384*1234#` → `tel:*384*1234%23`. The `#` must be
 * percent-encoded (RFC 3966; unencoded, it starts a URL fragment and phones dial the code without
 * it). Undefined for anything but digits, `*`, `#` and a leading `+`: a view is data, not markup.
 */
export function ussdTelHref(ussdCode: string | undefined): string | undefined {
  if (typeof ussdCode !== 'string' || !/^\+?[0-9*#]{1,64}$/.test(ussdCode)) return undefined;
  return `tel:${ussdCode.replaceAll('#', '%23')}`;
}
