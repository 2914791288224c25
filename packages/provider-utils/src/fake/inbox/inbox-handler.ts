import { loopbackHost } from '../loopback-request.js';
import type { FakeInboxSource } from './fake-inbox-source.js';
import { inboxScript, inboxStyle } from './inbox-assets.js';
import { dialInOutcome, renderInboxMain, renderInboxPage } from './inbox-page.js';

/** Where every fake serves its inbox page. */
export const inboxPath = '/__inbox';

/** Streams open at once; more are refused, so a runaway tab cannot hold the fake's sockets. */
const maxStreams = 32;
const heartbeatMs = 15_000;

const securityHeaders = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

const answer = (
  body: string | ReadableStream<Uint8Array> | null,
  status: number,
  type?: string,
  extra?: Record<string, string>,
) =>
  new Response(body, {
    status,
    headers: { ...securityHeaders, ...(type === undefined ? {} : { 'content-type': type }), ...extra },
  });
const text = (body: string, status: number) => answer(body, status, 'text/plain; charset=utf-8');

/**
 * The inbox's routes for a fake on `port`: the page, its content alone, its style and script, a stream of
 * changes, and (when the fake holds USSD sessions, or takes dial-in USSD) the dial and reply forms' targets.
 * Returns undefined for any other path.
 *
 * The fake listens on 127.0.0.1 only; on top of that, a request must name the fake by a loopback host (a page
 * on another site that rebinds its DNS name to 127.0.0.1 reads nothing), and a dial must come from the inbox's
 * own origin (another site's form cannot dial for the user).
 */
export function createInboxHandler(
  source: FakeInboxSource,
  port: () => number,
): (request: Request) => Response | Promise<Response> | undefined {
  let streams = 0;
  return (request) => {
    const url = new URL(request.url);
    if (url.pathname !== inboxPath && !url.pathname.startsWith(`${inboxPath}/`)) return undefined;
    const host = loopbackHost(request, port());
    if (host === undefined) return text('The inbox answers on 127.0.0.1 only.', 403);
    const route = `${request.method} ${url.pathname}`;
    switch (route) {
      case `GET ${inboxPath}`:
      case `GET ${inboxPath}/`:
        return answer(renderInboxPage(source, `http://${host}`), 200, 'text/html; charset=utf-8');
      case `GET ${inboxPath}/content`:
        return answer(renderInboxMain(source), 200, 'text/html; charset=utf-8');
      case `GET ${inboxPath}/inbox.js`:
        return answer(inboxScript, 200, 'text/javascript; charset=utf-8');
      case `GET ${inboxPath}/inbox.css`:
        return answer(inboxStyle, 200, 'text/css; charset=utf-8');
      case `GET ${inboxPath}/events`: {
        if (streams >= maxStreams) return text('Too many inbox pages are open.', 503);
        streams += 1;
        return changeStream(source, () => {
          streams -= 1;
        });
      }
      case `POST ${inboxPath}/ussd/dial`:
        return dial(source, request, host);
      case `POST ${inboxPath}/ussd/dial-in`:
      case `POST ${inboxPath}/ussd/reply`:
        return dialIn(source, request, host, url.pathname.endsWith('/reply') ? 'reply' : 'dial');
      default:
        return text('Not found', 404);
    }
  };
}

/** A server-sent `change` event on each change (coalesced by the page), and a comment every 15 s to keep it open. */
function changeStream(source: FakeInboxSource, done: () => void): Response {
  const encoder = new TextEncoder();
  let stop = (): void => undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (chunk: string) => {
        try {
          controller.enqueue(encoder.encode(chunk));
        } catch {
          stop();
        }
      };
      const changed = () => send('event: change\ndata: {}\n\n');
      const unsubscribes = [source.outbox.subscribe(changed), source.onChange?.(changed)];
      const heartbeat = setInterval(() => send(': still here\n\n'), heartbeatMs);
      heartbeat.unref?.();
      let stopped = false;
      stop = () => {
        if (stopped) return;
        stopped = true;
        clearInterval(heartbeat);
        for (const unsubscribe of unsubscribes) unsubscribe?.();
        done();
      };
      send('retry: 1000\n\n');
    },
    cancel() {
      stop();
    },
  });
  return answer(body, 200, 'text/event-stream; charset=utf-8');
}

/** Refuses a form post from another origin: another site's page cannot dial for the user. */
const foreign = (request: Request, host: string) =>
  request.headers.get('origin') === `http://${host}`
    ? undefined
    : text('Dial from the inbox page: this request came from another origin.', 403);

/** The page's script asks for JSON (and shows `message`); a plain form post (no script) goes back to the page. */
const done = (request: Request, message: string | undefined) =>
  request.headers.get('accept')?.includes('application/json')
    ? answer(JSON.stringify({ dialled: true, ...(message === undefined ? {} : { message }) }), 200, 'application/json')
    : answer(null, 303, undefined, { location: inboxPath });

async function dial(source: FakeInboxSource, request: Request, host: string): Promise<Response> {
  if (source.dialUssd === undefined) return text('This fake has no USSD sessions.', 404);
  const refused = foreign(request, host);
  if (refused !== undefined) return refused;
  const form = new URLSearchParams(await request.text());
  const phoneNumber = form.get('phoneNumber') ?? '';
  const outcome = form.get('outcome');
  if (!/^\+\d{8,15}$/.test(phoneNumber)) return text('phoneNumber must be an E.164 phone number.', 400);
  if (outcome !== 'success' && outcome !== 'failed') return text('outcome must be success or failed.', 400);
  if (!source.dialUssd(phoneNumber, outcome)) return text('No pending USSD session for this number.', 404);
  return done(request, undefined);
}

/**
 * Dials the service code as a phone (`dial`), or replies to an open session (`reply`): the fake posts the
 * session to the application and the answer is the screen the phone shows. A TypeError from the fake (a code
 * for another service, no callback URL, a session over) is the user's to read: 400 with its message.
 */
async function dialIn(
  source: FakeInboxSource,
  request: Request,
  host: string,
  action: 'dial' | 'reply',
): Promise<Response> {
  if (source.dialIn === undefined) return text('This fake takes no dial-in USSD.', 404);
  const refused = foreign(request, host);
  if (refused !== undefined) return refused;
  const form = new URLSearchParams(await request.text());
  try {
    if (action === 'dial') {
      const phoneNumber = (form.get('phoneNumber') ?? '').trim();
      const code = (form.get('code') ?? '').trim();
      if (!/^\+[1-9]\d{6,14}$/.test(phoneNumber))
        return text('Phone number must be + and its country code, then the number, digits only.', 400);
      if (!/^[0-9*#]{2,182}$/.test(code)) return text('Code must be digits, * and # only, e.g. *384*1234#.', 400);
      return done(request, dialInOutcome(await source.dialIn.dial(phoneNumber, code)));
    }
    const sessionId = form.get('sessionId') ?? '';
    const input = (form.get('input') ?? '').trim();
    if (!/^[\w-]{1,100}$/.test(sessionId)) return text('sessionId is missing.', 400);
    if (input === '') return text('Type a reply first.', 400);
    return done(request, dialInOutcome(await source.dialIn.reply(sessionId, input)));
  } catch (error) {
    if (error instanceof TypeError) return text(`${error.message}.`, 400);
    throw error;
  }
}
