import type { TermiiFakeReportedMessage } from './termii-fake-reports.js';
import { delay, type FakeParts } from '@verikit/provider-utils/fake';
import type { Context, Hono } from 'hono';
import { termiiMagicOf } from './termii-magic-numbers.js';
import type { TermiiFakeTokens } from './termii-fake-tokens.js';

let sent = 0;
/**
 * A message id of 19 digits, as Termii's are: the time in ms and a counter, so two messages answered in the same
 * millisecond (a simulation sends thousands a second) never share an id, which would send one's report to the other.
 */
function nextMessageId(): string {
  sent = (sent + 1) % 1_000_000;
  return `${Date.now()}${String(sent).padStart(6, '0')}`;
}

/** What the routes share with the running fake. */
export interface TermiiFakeState extends Pick<FakeParts, 'outbox' | 'latency' | 'slowMs'> {
  readonly apiKey: string;
  readonly tokens: TermiiFakeTokens;
  /** Whether the Search API reports a number (digits, no `+`) on Do-Not-Disturb. */
  readonly dndNumbers: (number: string) => boolean;
  /** Sends a delivery report of a message, when the fake was given a webhook URL. */
  readonly report?: (message: TermiiFakeReportedMessage) => void;
}

type Body = Record<string, unknown>;
const fail = (c: Context, status: 400 | 401 | 404 | 429 | 500, message: string) =>
  c.json({ code: 'fail', message }, status);
const isNumber = (value: unknown): value is string => typeof value === 'string' && /^[1-9]\d{6,14}$/.test(value);
const isSender = (value: unknown): value is string =>
  typeof value === 'string' && /^(?:[A-Za-z0-9]{3,11}|\d{3,15})$/.test(value);
const int = (value: unknown, min: number, max: number): value is number =>
  Number.isInteger(value) && (value as number) >= min && (value as number) <= max;

/**
 * Runs the checks every Termii route shares: latency, a JSON body, the API key in it, the magic numbers.
 * Returns the body, or the answer to give instead.
 */
async function admit(c: Context, state: TermiiFakeState, numberField: string): Promise<Body | Response> {
  await delay(state.latency.ms);
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    return fail(c, 400, 'The request body must be JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return fail(c, 400, 'The request body must be a JSON object');
  const fields = body as Body;
  if (fields['api_key'] !== state.apiKey) return fail(c, 401, 'Invalid API key');
  const magic = termiiMagicOf(fields[numberField]);
  if (magic === 'slow') await delay(state.slowMs);
  if (magic === 'rejected') return fail(c, 400, 'The request was refused (magic number)');
  if (magic === 'server-error') return fail(c, 500, 'Internal server error');
  if (magic === 'unauthorized') return fail(c, 401, 'Unauthorized');
  if (magic === 'rate-limited') return fail(c, 429, 'Too many requests');
  if (magic === 'not-json') return c.html('<html><body>Bad gateway</body></html>', 200);
  if (!isNumber(fields[numberField]))
    return fail(c, 400, `${numberField} must be a phone number in international format, digits only`);
  return fields;
}

/**
 * Termii's token and messaging routes, as its API reference describes them (paths, `api_key` in the JSON
 * body, field names, answers). Where the reference is silent on failures, the fake answers
 * `{ code: 'fail', message }` with the HTTP status its error-codes page lists.
 */
export function mountTermiiRoutes(app: Hono, state: TermiiFakeState): void {
  // developers.termii.com/send-token: SMS codes on the dnd or generic route. WhatsApp codes here (channel
  // "WhatsApp") are the retired form: they now go by Send WhatsApp Token on /api/sms/send (below).
  app.post('/api/sms/otp/send', async (c) => {
    const body = await admit(c, state, 'to');
    if (body instanceof Response) return body;
    const channel = body['channel'];
    if (typeof channel === 'string' && channel.toLowerCase() === 'whatsapp')
      return fail(c, 400, 'WhatsApp codes are sent by Send WhatsApp Token: /api/sms/send with channel whatsapp_otp');
    if (channel !== 'dnd' && channel !== 'generic') return fail(c, 400, 'channel must be dnd or generic');
    if (!isSender(body['from'])) return fail(c, 400, 'from must be an approved sender id of 3 to 11 characters');
    if (
      !int(body['pin_length'], 4, 8) ||
      !int(body['pin_attempts'], 1, 1000) ||
      !int(body['pin_time_to_live'], 0, 60)
    ) {
      return fail(c, 400, 'pin_length must be 4 to 8, pin_attempts at least 1, pin_time_to_live 0 to 60');
    }
    const placeholder = body['pin_placeholder'];
    const text = body['message_text'];
    if (typeof placeholder !== 'string' || typeof text !== 'string' || !text.includes(placeholder))
      return fail(c, 400, 'message_text must contain pin_placeholder');
    const to = body['to'] as string;
    const { pinId, pin } = state.tokens.issue(
      to,
      body['pin_length'] as number,
      body['pin_attempts'] as number,
      body['pin_time_to_live'] as number,
    );
    const blocked = channel === 'generic' && termiiMagicOf(to) === 'dnd';
    if (!blocked)
      state.outbox.push({
        channel: 'sms',
        to: `+${to}`,
        from: body['from'] as string,
        text: text.split(placeholder).join(pin),
        code: pin,
      });
    return c.json({ pinId, to, smsStatus: 'Message Sent' });
  });

  // developers.termii.com/voice-token: a code read out in a call.
  app.post('/api/sms/otp/send/voice', async (c) => {
    const body = await admit(c, state, 'phone_number');
    if (body instanceof Response) return body;
    if (
      !int(body['pin_length'], 4, 8) ||
      !int(body['pin_attempts'], 1, 1000) ||
      !int(body['pin_time_to_live'], 0, 60)
    ) {
      return fail(c, 400, 'pin_length must be 4 to 8, pin_attempts at least 1, pin_time_to_live 0 to 60');
    }
    const to = body['phone_number'] as string;
    const { pinId, pin } = state.tokens.issue(
      to,
      body['pin_length'] as number,
      body['pin_attempts'] as number,
      body['pin_time_to_live'] as number,
    );
    state.outbox.push({
      channel: 'voice',
      to: `+${to}`,
      text: `(voice call) Your code is ${pin.split('').join(' ')}`,
      code: pin,
    });
    const messageId = nextMessageId();
    state.report?.({
      messageId,
      receiver: to,
      sender: 'Termii',
      message: '(voice call)',
      channel: 'voice',
      delivered: true,
    });
    return c.json({
      code: 'ok',
      message_id: messageId,
      pinId,
      message: 'Successfully Sent',
      balance: 100,
      user: 'Termii Fake',
    });
  });

  // developers.termii.com/search: the key and the number in the query string; the answer names the DND status
  // (`DND blacklisted` is the one Termii documents; the fake's other status is its own) and the network.
  app.get('/api/check/dnd', async (c) => {
    await delay(state.latency.ms);
    if (c.req.query('api_key') !== state.apiKey) return fail(c, 401, 'Invalid API key');
    const number = c.req.query('phone_number');
    const magic = termiiMagicOf(number);
    if (magic === 'server-error') return fail(c, 500, 'Internal server error');
    if (magic === 'rate-limited') return fail(c, 429, 'Too many requests');
    if (!isNumber(number))
      return fail(c, 400, 'phone_number must be a phone number in international format, digits only');
    return c.json({
      number,
      status: state.dndNumbers(number) ? 'DND blacklisted' : 'DND not active',
      network: 'Unknown',
      network_code: '',
    });
  });

  // developers.termii.com/verify-token.
  app.post('/api/sms/otp/verify', async (c) => {
    await delay(state.latency.ms);
    const body = (await c.req.json().catch(() => null)) as Body | null;
    if (body === null || typeof body !== 'object') return fail(c, 400, 'The request body must be a JSON object');
    if (body['api_key'] !== state.apiKey) return fail(c, 401, 'Invalid API key');
    if (typeof body['pin_id'] !== 'string' || typeof body['pin'] !== 'string')
      return fail(c, 400, 'pin_id and pin are required');
    const result = state.tokens.check(body['pin_id'], body['pin']);
    if (!result.found) return fail(c, 404, 'Pin not found');
    const answer = { pinId: body['pin_id'], verified: result.verified, msisdn: result.to };
    return c.json(answer, result.verified === 'False' ? 400 : 200);
  });

  // developers.termii.com/messaging-api: SMS (dnd or generic route) and WhatsApp; and
  // developers.termii.com/send-whatsapp-token: a code the caller made, on channel whatsapp_otp.
  app.post('/api/sms/send', async (c) => {
    const body = await admit(c, state, 'to');
    if (body instanceof Response) return body;
    const channel = body['channel'];
    if (channel === 'whatsapp_otp') {
      if (body['type'] !== 'plain') return fail(c, 400, 'type must be plain');
      if (typeof body['from'] !== 'string' || body['from'].length === 0)
        return fail(c, 400, 'from must be a device name');
      const code = body['sms'];
      if (typeof code !== 'string' || !/^\d{4,6}$/.test(code))
        return fail(c, 400, 'sms must be a code of 4 to 6 digits');
      state.outbox.push({ channel: 'whatsapp', to: `+${body['to'] as string}`, from: body['from'], text: code, code });
      const messageId = nextMessageId();
      state.report?.({
        messageId,
        receiver: body['to'] as string,
        sender: body['from'],
        message: code,
        channel: 'whatsapp',
        delivered: true,
      });
      return c.json({
        code: 'ok',
        message_id: messageId,
        message: 'Successfully Sent',
        balance: 100,
        user: 'Termii Fake',
      });
    }
    if (channel !== 'dnd' && channel !== 'generic' && channel !== 'whatsapp')
      return fail(c, 400, 'channel must be dnd, generic, whatsapp or whatsapp_otp');
    if (body['type'] !== 'plain') return fail(c, 400, 'type must be plain');
    if (channel !== 'whatsapp' && !isSender(body['from']))
      return fail(c, 400, 'from must be an approved sender id of 3 to 11 characters');
    if (channel === 'whatsapp' && (typeof body['from'] !== 'string' || body['from'].length === 0))
      return fail(c, 400, 'from must be a device name');
    const sms = body['sms'];
    if (typeof sms !== 'string' || sms.length === 0) return fail(c, 400, 'sms is required');
    const to = body['to'] as string;
    const blocked = channel === 'generic' && termiiMagicOf(to) === 'dnd';
    if (!blocked)
      state.outbox.push({
        channel: channel === 'whatsapp' ? 'whatsapp' : 'sms',
        to: `+${to}`,
        from: body['from'] as string,
        text: sms,
      });
    const messageId = nextMessageId();
    state.report?.({
      messageId,
      receiver: to,
      sender: body['from'] as string,
      message: sms,
      channel: channel === 'whatsapp' ? 'whatsapp' : channel,
      delivered: !blocked,
    });
    return c.json({
      code: 'ok',
      message_id: messageId,
      message: 'Successfully Sent',
      balance: 100,
      user: 'Termii Fake',
    });
  });
}
