import { codeInText, delay, type FakeMessage, type FakeParts, type FakeRequest } from '@verikit/provider-utils/fake';
import type { Context, Hono } from 'hono';
import { twilioMagicOf } from './twilio-magic-numbers.js';
import { newSid, type TwilioFakeVerifications } from './twilio-fake-verifications.js';
import type { TwilioFakeMessages } from './twilio-fake-messages.js';

/** What the routes share with the running fake. */
export interface TwilioFakeState
  extends Pick<FakeParts<FakeRequest, TwilioFakeMessage>, 'outbox' | 'latency' | 'slowMs'> {
  readonly accountSid: string;
  /** Accepted Basic credentials: username → password (the account SID and auth token; API key pairs). */
  readonly credentials: ReadonlyMap<string, string>;
  readonly verifyServiceSid: string;
  readonly customCode: boolean;
  readonly verifications: TwilioFakeVerifications;
  readonly messages: TwilioFakeMessages;
  /** Content templates: `HX…` SID → the text (with `{{1}}`, `{{2}}`… placeholders), its language, its approval. */
  readonly templates: ReadonlyMap<string, TwilioFakeTemplate>;
}

/** A message the Twilio fake delivered: a template's carries the template's language. */
export interface TwilioFakeMessage extends FakeMessage {
  /** The language of the content template it went as (Messages take no language: the template has one). */
  readonly language?: string;
}

/** A content template as the fake keeps it (one language per template, as Twilio's Content resource has). */
export interface TwilioFakeTemplate {
  readonly text: string;
  readonly language: string;
  /** Approved by WhatsApp: only then does it reach a user outside the 24-hour window. */
  readonly approved: boolean;
}

type Status = 400 | 401 | 404 | 429 | 500;
type Form = Record<string, string>;
const e164 = /^\+[1-9]\d{6,14}$/;

/** Twilio's error body (twilio.com/docs/usage/twilios-response): code, message, more_info, status. */
function twilioFailure(c: Context, status: Status, code: number, message: string) {
  return c.json({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status }, status);
}

/** Basic auth as Twilio takes it: the account SID and auth token, or an API key SID and secret. */
function authenticated(c: Context, state: TwilioFakeState): boolean {
  const header = c.req.header('authorization') ?? '';
  if (!header.startsWith('Basic ')) return false;
  let decoded: string;
  try {
    decoded = atob(header.slice(6));
  } catch {
    return false;
  }
  const at = decoded.indexOf(':');
  return at > 0 && state.credentials.get(decoded.slice(0, at)) === decoded.slice(at + 1);
}

/** Latency, auth, a form body and the magic numbers, shared by every route. Returns the form or the answer to give. */
async function admit(c: Context, state: TwilioFakeState, api: 'verify' | 'messaging'): Promise<Form | Response> {
  await delay(state.latency.ms);
  if (!authenticated(c, state)) return twilioFailure(c, 401, 20003, 'Authenticate');
  if (!(c.req.header('content-type') ?? '').startsWith('application/x-www-form-urlencoded'))
    return twilioFailure(c, 400, 20001, 'Content-Type must be application/x-www-form-urlencoded');
  const form: Form = {};
  for (const [key, value] of new URLSearchParams(await c.req.text())) form[key] = value;
  const magic = twilioMagicOf(form['To']);
  if (magic === 'slow') await delay(state.slowMs);
  if (magic === 'rejected')
    return api === 'verify'
      ? twilioFailure(c, 400, 60200, 'Invalid parameter: To')
      : twilioFailure(c, 400, 21211, "The 'To' number is not a valid phone number.");
  if (magic === 'server-error') return twilioFailure(c, 500, 20500, 'Internal Server Error');
  if (magic === 'unauthorized') return twilioFailure(c, 401, 20003, 'Authenticate');
  if (magic === 'rate-limited') return twilioFailure(c, 429, 20429, 'Too Many Requests');
  if (magic === 'not-json') return c.html('<html><body>Bad gateway</body></html>', 200);
  if (magic === 'unsubscribed' && api === 'messaging')
    return twilioFailure(c, 400, 21610, 'Attempt to send to unsubscribed recipient');
  return form;
}

/**
 * Twilio's Verify v2 and Programmable Messaging routes, as their API references describe them: the same
 * paths, Basic auth, form-encoded bodies, field names (`To`, `Channel`, `Code`, `VerificationSid`, `From`,
 * `MessagingServiceSid`, `Body`), answer shapes and error codes.
 */
export function mountTwilioRoutes(app: Hono, state: TwilioFakeState): void {
  // twilio.com/docs/verify/api/verification#start-new-verification
  app.post('/v2/Services/:service/Verifications', async (c) => {
    const form = await admit(c, state, 'verify');
    if (form instanceof Response) return form;
    if (c.req.param('service') !== state.verifyServiceSid)
      return twilioFailure(c, 404, 20404, 'The requested resource was not found');
    if (twilioMagicOf(form['To']) === 'max-send-attempts')
      return twilioFailure(c, 429, 60203, 'Max send attempts reached');
    const to = form['To'] ?? '';
    if (!e164.test(to)) return twilioFailure(c, 400, 60200, 'Invalid parameter `To`');
    const channel = form['Channel'];
    if (channel !== 'sms' && channel !== 'call' && channel !== 'whatsapp')
      return twilioFailure(c, 400, 60200, 'Invalid parameter `Channel`');
    const custom = form['CustomCode'];
    if (custom !== undefined && (!state.customCode || !/^\d{4,10}$/.test(custom)))
      return twilioFailure(c, 400, 60200, 'Invalid parameter `CustomCode`');
    const verification = state.verifications.send(to, channel, custom);
    if (verification === undefined) return twilioFailure(c, 429, 60203, 'Max send attempts reached');
    const spoken =
      channel === 'call'
        ? `(voice call) Your verification code is ${verification.code.split('').join(' ')}`
        : `Your verification code is: ${verification.code}`;
    state.outbox.push({ channel: channel === 'call' ? 'voice' : channel, to, text: spoken, code: verification.code });
    const now = new Date().toISOString();
    return c.json(
      {
        sid: verification.sid,
        service_sid: state.verifyServiceSid,
        account_sid: state.accountSid,
        to,
        channel,
        status: 'pending',
        valid: false,
        lookup: {},
        amount: null,
        payee: null,
        send_code_attempts: Array.from({ length: verification.sends }, () => ({
          time: now,
          channel,
          attempt_sid: newSid('VL'),
        })),
        date_created: now,
        date_updated: now,
        sna: null,
        url: `https://verify.twilio.com/v2/Services/${state.verifyServiceSid}/Verifications/${verification.sid}`,
      },
      201,
    );
  });

  // twilio.com/docs/verify/api/verification-check
  app.post('/v2/Services/:service/VerificationCheck', async (c) => {
    const form = await admit(c, state, 'verify');
    if (form instanceof Response) return form;
    if (c.req.param('service') !== state.verifyServiceSid)
      return twilioFailure(c, 404, 20404, 'The requested resource was not found');
    const code = form['Code'];
    if (code === undefined || !/^[0-9A-Za-z]{4,10}$/.test(code))
      return twilioFailure(c, 400, 60200, 'Invalid parameter `Code`');
    const sid = form['VerificationSid'];
    if (sid !== undefined && !/^VE[0-9a-f]{32}$/.test(sid))
      return twilioFailure(c, 400, 60200, 'Invalid parameter `VerificationSid`');
    if (sid === undefined && form['To'] === undefined)
      return twilioFailure(c, 400, 60200, 'Either a `To` or a `VerificationSid` must be specified');
    const outcome = state.verifications.check(
      { ...(sid === undefined ? {} : { sid }), ...(form['To'] === undefined ? {} : { to: form['To'] }) },
      code,
    );
    if (outcome.kind === 'not-found') return twilioFailure(c, 404, 20404, 'The requested resource was not found');
    if (outcome.kind === 'max-checks') return twilioFailure(c, 429, 60202, 'Max check attempts reached');
    const now = new Date().toISOString();
    return c.json({
      sid: outcome.sid,
      service_sid: state.verifyServiceSid,
      account_sid: state.accountSid,
      to: outcome.to,
      channel: outcome.channel,
      status: outcome.approved ? 'approved' : 'pending',
      valid: outcome.approved,
      amount: null,
      payee: null,
      date_created: now,
      date_updated: now,
      sna_attempts_error_codes: [],
    });
  });

  // twilio.com/docs/messaging/api/message-resource#create-a-message-resource
  app.post('/2010-04-01/Accounts/:account/Messages.json', async (c) => {
    const form = await admit(c, state, 'messaging');
    if (form instanceof Response) return form;
    if (c.req.param('account') !== state.accountSid)
      return twilioFailure(c, 404, 20404, 'The requested resource was not found');
    const to = form['To'] ?? '';
    const from = form['From'];
    const whatsapp = to.startsWith('whatsapp:');
    if (!e164.test(whatsapp ? to.slice(9) : to))
      return twilioFailure(c, 400, 21211, "The 'To' number is not a valid phone number.");
    if (from === undefined && form['MessagingServiceSid'] === undefined)
      return twilioFailure(c, 400, 21603, "A 'From' or 'MessagingServiceSid' parameter is required to send a message");
    if (whatsapp !== (from?.startsWith('whatsapp:') ?? false) && from !== undefined)
      return twilioFailure(c, 400, 21910, 'Invalid From and To pair. From and To should be of the same channel');
    if (form['StatusCallback'] !== undefined && !/^https?:\/\/[^\s/?#]+[^\s#]*$/.test(form['StatusCallback']))
      return twilioFailure(c, 400, 21609, 'Invalid StatusCallback URL');
    const content = contentOf(c, state, form);
    if (content instanceof Response) return content;
    const recipient = whatsapp ? to.slice(9) : to;
    // Free-form WhatsApp, or a template WhatsApp has not approved, outside the customer-service window is accepted,
    // then fails (twilio.com/docs/api/errors/63016: outside the window, only an approved template reaches the user).
    const ending =
      whatsapp && !content.approved && !state.messages.whatsAppWindowOpen(recipient)
        ? ({ status: 'failed', code: 63016, message: outsideWindow } as const)
        : twilioMagicOf(to) === 'undelivered'
          ? ({ status: 'undelivered', code: 30003, message: 'Unreachable destination handset' } as const)
          : ({ status: 'delivered' } as const);
    const resource = state.messages.create(
      {
        to,
        from,
        service: form['MessagingServiceSid'],
        body: content.text,
        statusCallback: form['StatusCallback'],
        ending,
      },
      state.outbox,
      {
        channel: whatsapp ? 'whatsapp' : 'sms',
        to: recipient,
        ...(from === undefined ? {} : { from }),
        text: content.text,
        ...(content.code === undefined ? {} : { code: content.code }),
        ...(content.language === undefined ? {} : { language: content.language }),
      },
    );
    return c.json(resource, 201);
  });

  // twilio.com/docs/messaging/api/message-resource#fetch-a-message-resource
  app.get('/2010-04-01/Accounts/:account/Messages/:file', async (c) => {
    await delay(state.latency.ms);
    if (!authenticated(c, state)) return twilioFailure(c, 401, 20003, 'Authenticate');
    const sid = /^(SM[0-9a-f]{32})\.json$/.exec(c.req.param('file'))?.[1];
    const resource = c.req.param('account') === state.accountSid && sid ? state.messages.resource(sid) : undefined;
    return resource === undefined
      ? twilioFailure(c, 404, 20404, 'The requested resource was not found')
      : c.json(resource);
  });
}

const outsideWindow =
  'Failed to send freeform message because you are outside the allowed window. If you are using WhatsApp, please use a Message Template.';

/**
 * A message's content: `Body` (free form), or a template (`ContentSid`, `HX…`, with `ContentVariables`, a JSON
 * object of non-empty strings, filling its `{{n}}` placeholders; errors 21654, 21655, 21656 as SOURCES.md lists).
 * The template is sent in its own language: Messages take no language. Returns the text the user would see,
 * whether it is an approved template (free form never is), and the code in it.
 */
function contentOf(
  c: Context,
  state: TwilioFakeState,
  form: Form,
): { text: string; approved: boolean; code: string | undefined; language?: string } | Response {
  const contentSid = form['ContentSid'];
  if (contentSid === undefined && form['ContentVariables'] !== undefined)
    return twilioFailure(c, 400, 21654, 'ContentSid Required');
  if (contentSid !== undefined) {
    const template = state.templates.get(contentSid);
    if (template === undefined) return twilioFailure(c, 400, 21655, 'The ContentSid is Invalid');
    let variables: unknown = {};
    try {
      variables = JSON.parse(form['ContentVariables'] ?? '{}');
    } catch {
      variables = undefined;
    }
    if (
      typeof variables !== 'object' ||
      variables === null ||
      Array.isArray(variables) ||
      Object.values(variables).some((value) => typeof value !== 'string' || value === '')
    )
      return twilioFailure(c, 400, 21656, 'The ContentVariables Parameter is invalid');
    const values = variables as Record<string, string>;
    const text = template.text.replace(/\{\{(\d+)\}\}/g, (_match, key: string) => values[key] ?? '');
    const first = values['1'];
    const code = first !== undefined && /^\d{4,10}$/.test(first) ? first : undefined;
    return { text, approved: template.approved, code, language: template.language };
  }
  const body = form['Body'];
  if (body === undefined || body.length === 0 || body.length > 1600)
    return twilioFailure(c, 400, 21602, 'Message body is required and must be at most 1600 characters.');
  return { text: body, approved: false, code: codeInText(body) };
}
