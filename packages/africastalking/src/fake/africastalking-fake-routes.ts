import { randomBytes } from 'node:crypto';
import { codeInText, delay, type FakeParts } from '@verikit/provider-utils/fake';
import type { Context, Hono } from 'hono';
import { africasTalkingRecipientStatus } from '../africastalking-status.js';
import { africasTalkingMagicOf, type AfricasTalkingMagicBehaviour } from './africastalking-magic-numbers.js';

/** What the routes share with the running fake. */
export interface AfricasTalkingFakeState extends Pick<FakeParts, 'outbox' | 'latency' | 'slowMs'> {
  readonly username: string;
  readonly apiKey: string;
  /** Called for each message taken, to send its delivery report when a report URL is set. */
  /** A message was taken: its delivery report follows (`Success`, or `Failed` when it never reached the handset). */
  readonly delivered: (message: { messageId: string; phoneNumber: string; delivered: boolean }) => void;
}

/** The per-recipient failure a magic number asks for, as the status code the API would answer. */
const recipientFailures: Partial<Record<AfricasTalkingMagicBehaviour, keyof typeof africasTalkingRecipientStatus>> = {
  'invalid-number': 403,
  dnd: 409,
  'insufficient-balance': 405,
  blacklisted: 406,
  'gateway-error': 500,
};

const e164 = /^\+[1-9]\d{6,14}$/;

/** Africa's Talking answers a refused request in plain text. */
const plain = (c: Context, status: 400 | 401 | 404 | 415 | 500, text: string) => c.text(text, status);

/** A new id shaped like Africa's Talking's (`ATXid_…` for messages, `ATUid_…` for USSD sessions). */
export const newAtId = (prefix: 'ATXid' | 'ATUid') => `${prefix}_${randomBytes(16).toString('hex')}`;

/**
 * Africa's Talking's messaging route, as its SMS reference and official Node SDK describe it: `POST
 * /version1/messaging`, `application/x-www-form-urlencoded` with `username`, `to` (comma-separated), `message`
 * and an optional `from`, the key in the `apiKey` header, answered HTTP 201 with `SMSMessageData.Recipients`
 * (one per number, with `statusCode`, `number`, `status`, `cost` and `messageId`). See SOURCES.md.
 */
export function mountAfricasTalkingRoutes(app: Hono, state: AfricasTalkingFakeState): void {
  app.post('/version1/messaging', async (c) => {
    await delay(state.latency.ms);
    if (c.req.header('apikey') !== state.apiKey) return plain(c, 401, 'The supplied authentication is invalid');
    if (!(c.req.header('content-type') ?? '').startsWith('application/x-www-form-urlencoded'))
      return plain(c, 415, 'Content-Type must be application/x-www-form-urlencoded');
    const form = new URLSearchParams(await c.req.text());
    if (form.get('username') !== state.username) return plain(c, 401, 'The supplied authentication is invalid');
    const message = form.get('message');
    if (message === null || message.length === 0)
      return plain(c, 400, "Request is missing required form field 'message'");
    const to = (form.get('to') ?? '')
      .split(',')
      .map((number) => number.trim())
      .filter((number) => number.length > 0);
    if (to.length === 0) return plain(c, 400, "Request is missing required form field 'to'");
    const from = form.get('from') ?? undefined;
    if (from !== undefined && !/^(?:\d{3,15}|[A-Za-z0-9 ]{1,11})$/.test(from))
      return c.json({ SMSMessageData: { Message: 'InvalidSenderId', Recipients: [] } }, 201);
    const magics = to.map(africasTalkingMagicOf);
    if (magics.includes('slow')) await delay(state.slowMs);
    if (magics.includes('server-error')) return plain(c, 500, 'Internal Server Error');
    if (magics.includes('unauthorized')) return plain(c, 401, 'The supplied authentication is invalid');
    if (magics.includes('not-json')) return c.html('<html><body>Bad gateway</body></html>', 201);
    let sent = 0;
    const recipients = to.map((number, index) => {
      const failure = recipientFailures[magics[index]!] ?? (e164.test(number) ? undefined : 403);
      if (failure !== undefined)
        return {
          statusCode: failure,
          number,
          status: africasTalkingRecipientStatus[failure],
          cost: '0',
          messageId: 'None',
        };
      sent += 1;
      const messageId = newAtId('ATXid');
      // Africa's Talking takes text, not a code: the code is what the text carries, for the inbox and lastCode.
      const code = codeInText(message);
      // `undelivered`: taken like any message, then never reaches the handset (its report says Failed).
      const delivered = magics[index] !== 'undelivered';
      if (delivered)
        state.outbox.push({
          channel: 'sms',
          to: number,
          ...(from === undefined ? {} : { from }),
          text: message,
          ...(code === undefined ? {} : { code }),
        });
      state.delivered({ messageId, phoneNumber: number, delivered });
      return { statusCode: 101, number, status: 'Success', cost: 'KES 0.8000', messageId };
    });
    const cost = (sent * 0.8).toFixed(4);
    return c.json(
      { SMSMessageData: { Message: `Sent to ${sent}/${to.length} Total Cost: KES ${cost}`, Recipients: recipients } },
      201,
    );
  });
}
