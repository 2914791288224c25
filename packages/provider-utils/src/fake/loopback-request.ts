/**
 * The `Host` a request names the fake by, when it is a loopback name with the fake's port (`127.0.0.1`, `localhost`,
 * `[::1]`); undefined for any other. The fake listens on 127.0.0.1 only; this keeps a page on another site whose DNS
 * name is rebound to 127.0.0.1 from reading or driving it.
 */
export function loopbackHost(request: Request, port: number): string | undefined {
  const host = (request.headers.get('host') ?? '').toLowerCase();
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`].includes(host) ? host : undefined;
}

/** The paths of the fakes' control endpoints: read the outbox, dial, reset, tune latency. */
const controlPrefixes = ['/__sandbox/', '/__fake/'];

/**
 * Guards the control endpoints of a fake (`/__sandbox/…`, `/__fake/…`) as the inbox is guarded: a loopback `Host`
 * with the fake's port, and, for anything but a read, no `Origin` but the fake's own (a test or `curl` sends none; a
 * browser always sends one with a cross-site POST, `text/plain` included). A `403` for anything else; undefined when
 * the request may go on.
 */
export function refuseForeignControl(request: Request, port: number): Response | undefined {
  const { pathname } = new URL(request.url);
  if (!controlPrefixes.some((prefix) => pathname.startsWith(prefix))) return undefined;
  const host = loopbackHost(request, port);
  if (host === undefined) return refusal('The control endpoints answer on 127.0.0.1 only.');
  if (request.method === 'GET' || request.method === 'HEAD') return undefined;
  const origin = request.headers.get('origin');
  return origin === null || origin === `http://${host}`
    ? undefined
    : refusal('The control endpoints take no request from another origin.');
}

function refusal(message: string): Response {
  return new Response(JSON.stringify({ error: message }), {
    status: 403,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
  });
}
