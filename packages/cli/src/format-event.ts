import type { GatewayFakeEvent } from '@verikit/gateway/fake';

/** One line for an event of the gateway's fake. Request summaries come with codes, OTPs and identity numbers masked. */
export function formatEvent(event: GatewayFakeEvent): string {
  const time = new Date().toISOString().slice(11, 23);
  if (event.type === 'request') {
    const summary = event.summary === undefined ? '' : ` ${JSON.stringify(event.summary)}`;
    // Why the fake refused it: the answer is the interface's bare envelope, so the developer reads it here.
    const why =
      event.errors === undefined
        ? ''
        : ` (${event.errors.map((error) => `${error.field} ${error.message}`).join('; ')})`;
    return `${time} ← ${event.method} ${event.path} ${event.status} ${event.durationMs}ms${summary}${why}`;
  }
  const outcome = event.status === undefined ? (event.error ?? 'no answer') : `HTTP ${event.status}`;
  const next = event.delivered ? 'delivered' : event.willRetry ? 'will retry' : 'gave up';
  return `${time} → webhook ${event.id} attempt ${event.attempt} to ${displayUrl(event.url)}: ${outcome}, ${next}`;
}

/**
 * A URL fit to print: origin and path only. The query (often a token), the fragment and any
 * credentials are left out.
 */
export function displayUrl(url: string): string {
  if (!URL.canParse(url)) return '(an invalid URL)';
  const parsed = new URL(url);
  return parsed.origin === 'null' ? `${parsed.protocol}${parsed.pathname}` : `${parsed.origin}${parsed.pathname}`;
}
