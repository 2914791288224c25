const secretFields = new Set(['otp', 'code', 'number', 'apiKey', 'apikey']);

/** A copy of a request body fit to print: codes, OTPs and identity numbers masked, long texts shortened. */
export function redactBody(body: unknown): Record<string, unknown> | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const summary: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body).slice(0, 10)) {
    if (secretFields.has(key)) summary[key] = '•••';
    else if (typeof value === 'string') summary[key] = value.length > 40 ? `${value.slice(0, 37)}…` : value;
    else if (typeof value === 'number' || typeof value === 'boolean' || value === null) summary[key] = value;
    else summary[key] = typeof value;
  }
  return summary;
}
