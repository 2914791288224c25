import {
  CapabilityError,
  InvalidInputError,
  parseInput,
  ProviderProtocolError,
  type PhoneChannel,
  type PhoneCheckResultV1,
  type ProviderV1,
} from '@verikit/provider';
import { createTermiiClient, requiredText, termiiPaths, type TermiiAnswer } from './termii-client.js';
import { pinPlaceholder, toTermiiNumber } from './termii-format.js';
import { phoneCheckSchema, phoneSendSchema, smsSendSchema, whatsAppSendSchema } from './termii-input-schemas.js';
import type { TermiiProviderSettings } from './termii-settings.js';
import { resolveTermiiSettings } from './termii-settings-schema.js';

const channels: readonly PhoneChannel[] = Object.freeze(['sms', 'voice', 'whatsapp']);

/**
 * How Verify Token's `verified` reads: `true`/`"True"` valid; `"Expired"` and an exhausted attempt count are
 * the flow's own state, not errors; anything else false is a wrong code.
 */
function readVerified(answer: TermiiAnswer): PhoneCheckResultV1 {
  const verified = answer['verified'];
  if (verified === true || (typeof verified === 'string' && verified.toLowerCase() === 'true')) return { valid: true };
  if (typeof verified === 'string') {
    const text = verified.toLowerCase();
    if (text.includes('expired')) return { valid: false, reason: 'expired' };
    if (text.includes('attempt')) return { valid: false, reason: 'attempts-exhausted' };
  }
  return { valid: false };
}

/**
 * Creates the Termii provider: phone verification on Termii's token API (SMS and WhatsApp codes by Send
 * Token, voice codes by Voice Token, checks by Verify Token; Termii's `pinId` is our requestId), and SMS and
 * WhatsApp on its messaging API. Codes go by the DND route by default (the generic route does not reach
 * numbers on Do-Not-Disturb). No USSD and no BVN/NIN: those capabilities are absent.
 *
 * Every setting may come from the environment (`TERMII_API_KEY`, `TERMII_BASE_URL`, `TERMII_SENDER_ID`,
 * `TERMII_WHATSAPP_FROM`), read at each call. Bad settings throw an `InvalidInputError` naming the setting.
 *
 * @example
 * const provider = createTermiiProvider({ senderId: 'Acme' }); // TERMII_API_KEY from the environment
 */
export function createTermiiProvider(settings: TermiiProviderSettings = {}): ProviderV1 {
  const resolved = resolveTermiiSettings(settings);
  const client = createTermiiClient(resolved);
  const name = resolved.name;

  function senderOf(from: string | undefined): string {
    const sender = from ?? resolved.senderId();
    if (sender === undefined)
      throw new InvalidInputError([
        { field: 'from', message: 'is required: pass from, or configure senderId (TERMII_SENDER_ID)' },
      ]);
    return sender;
  }
  const requiresSender = () =>
    settings?.senderId === undefined && resolved.senderId() === undefined
      ? { requires: Object.freeze(['sender'] as const) }
      : {};

  const provider: ProviderV1 = {
    specificationVersion: 'v1',
    name,
    phone: {
      channels,
      customCode: false,
      async send(input, context) {
        if (typeof input === 'object' && input !== null && input.code !== undefined) {
          throw new CapabilityError('phone verification with a code we generate', name, { field: 'code' });
        }
        const parsed = parseInput(phoneSendSchema, input);
        const to = toTermiiNumber(parsed.phoneNumber);
        const pin = {
          pin_attempts: resolved.pinAttempts,
          pin_time_to_live: resolved.pinTimeToLiveMinutes,
          pin_length: resolved.pinLength,
        };
        let answer: TermiiAnswer;
        if (parsed.channel === 'voice') {
          answer = await client.post('phone.send', termiiPaths.voiceToken, { phone_number: to, ...pin }, context);
        } else {
          answer = await client.post(
            'phone.send',
            termiiPaths.sendToken,
            {
              message_type: 'NUMERIC',
              pin_type: 'NUMERIC',
              to,
              from: senderOf(parsed.from),
              channel: parsed.channel === 'whatsapp' ? 'WhatsApp' : resolved.otpRoute,
              ...pin,
              pin_placeholder: pinPlaceholder,
              message_text: resolved.messageTemplates(parsed.locale, parsed.channel) ?? resolved.messageText,
            },
            context,
          );
        }
        return { requestId: requiredText(`${name} phone.send`, answer, ['pinId', 'pin_id']) };
      },
      async check(input, context) {
        const parsed = parseInput(phoneCheckSchema, input);
        // Verify Token answers a wrong or expired code with a `verified` field; 400 bodies carry it too.
        const answer = await client.post(
          'phone.check',
          termiiPaths.verifyToken,
          { pin_id: parsed.requestId, pin: parsed.code },
          context,
          (body) => Object.hasOwn(body, 'verified'),
        );
        if (!Object.hasOwn(answer, 'verified'))
          throw new ProviderProtocolError(`${name} phone.check: the response has no verified`, { field: 'verified' });
        return readVerified(answer);
      },
    },
    sms: {
      ...requiresSender(),
      async send(input, context) {
        const parsed = parseInput(smsSendSchema, input);
        const body = {
          to: toTermiiNumber(parsed.to),
          from: senderOf(parsed.from),
          sms: parsed.message,
          type: 'plain',
          channel: resolved.messageRoute,
        };
        const answer = await client.post('sms.send', termiiPaths.send, body, context);
        return { messageId: requiredText(`${name} sms.send`, answer, ['message_id', 'messageId']) };
      },
    },
    whatsapp: {
      async send(input, context) {
        const parsed = parseInput(whatsAppSendSchema, input);
        const from = resolved.whatsappFrom() ?? resolved.senderId();
        if (from === undefined)
          throw new InvalidInputError([
            {
              field: 'whatsappFrom',
              message: 'is required: configure whatsappFrom (TERMII_WHATSAPP_FROM) or senderId',
            },
          ]);
        const body = {
          to: toTermiiNumber(parsed.phoneNumber),
          from,
          sms: parsed.message,
          type: 'plain',
          channel: 'whatsapp',
        };
        const answer = await client.post('whatsapp.send', termiiPaths.send, body, context);
        return { messageId: requiredText(`${name} whatsapp.send`, answer, ['message_id', 'messageId']) };
      },
    },
  };
  return Object.freeze(provider);
}
