import {
  InvalidInputError,
  parseInput,
  parseProviderInputV1,
  phoneCheckInputSchemaV1,
  phoneReachInputSchemaV1,
  ProviderProtocolError,
  smsSendInputSchemaV1,
  whatsAppSendInputSchemaV1,
  type PhoneChannel,
  type PhoneCheckResultV1,
  type ProviderV1,
  readPhoneSendInputV1,
} from '@verikit/provider';
import { senderRequirement } from '@verikit/provider-utils';
import { createTermiiClient, requiredText, termiiPaths, type TermiiAnswer } from './termii-client.js';
import { pinPlaceholder, termiiSenderSchema, toTermiiNumber } from './termii-format.js';
import { checkLocalCode, isLocalCodeRequest, issueSmsCode, issueWhatsAppCode } from './termii-whatsapp-code.js';
import type { TermiiProviderSettings } from './termii-settings.js';
import { resolveTermiiSettings } from './termii-settings-schema.js';
import { parseTermiiDeliveryReport } from './termii-delivery-report.js';

const channels: readonly PhoneChannel[] = Object.freeze(['sms', 'voice', 'whatsapp']);

/** The status Termii's Search API gives a number on Do-Not-Disturb (developers.termii.com/search), lower-cased. */
const dndBlacklisted = 'dnd blacklisted';

/**
 * How Verify Token's `verified` reads, strictly: `true`/`"True"` valid; `false`/`"False"` a wrong code;
 * `"Expired"` and an exhausted attempt count are the flow's own state, not errors. Anything else (a number, null,
 * an unknown word) is a `ProviderProtocolError`: never read as valid, nor guessed as a wrong code.
 */
function readVerified(answer: TermiiAnswer): PhoneCheckResultV1 {
  const verified = answer['verified'];
  if (typeof verified === 'boolean') return { valid: verified };
  const text = typeof verified === 'string' ? verified.trim().toLowerCase() : undefined;
  if (text === 'true') return { valid: true };
  if (text === 'false') return { valid: false };
  if (text?.includes('expired')) return { valid: false, reason: 'expired' };
  if (text?.includes('attempt')) return { valid: false, reason: 'attempts-exhausted' };
  throw new ProviderProtocolError('termii phone.check: verified is not true, false, "Expired" or an attempts notice', {
    field: 'verified',
  });
}

/**
 * Creates the Termii provider: phone verification on Termii's token API (SMS codes by Send Token, voice codes
 * by Voice Token, checks by Verify Token; Termii's `pinId` is our requestId), WhatsApp codes by Send WhatsApp
 * Token (a code we make, from `whatsappFrom`, checked here against a keyed hash in the requestId), and SMS and
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
    const sender = from === undefined ? resolved.senderId() : parseInput(termiiSenderSchema, from, 'from');
    if (sender === undefined)
      throw new InvalidInputError([
        { field: 'from', message: 'is required: pass from, or configure senderId (TERMII_SENDER_ID)' },
      ]);
    return sender;
  }
  function whatsAppSender(): string {
    const from = resolved.whatsappFrom() ?? resolved.senderId();
    if (from === undefined)
      throw new InvalidInputError([
        { field: 'whatsappFrom', message: 'is required: configure whatsappFrom (TERMII_WHATSAPP_FROM) or senderId' },
      ]);
    return from;
  }
  const provider: ProviderV1 = {
    specificationVersion: 'v1',
    name,
    phone: {
      channels,
      customCode: false,
      async send(input, context) {
        const parsed = readPhoneSendInputV1(provider, input);
        const to = toTermiiNumber(parsed.phoneNumber);
        const pin = {
          pin_attempts: resolved.pinAttempts,
          pin_time_to_live: resolved.pinTimeToLiveMinutes,
          pin_length: resolved.pinLength,
        };
        let answer: TermiiAnswer;
        if (parsed.channel === 'whatsapp') {
          // Send WhatsApp Token: the messaging route with channel `whatsapp_otp`, the device name as `from`
          // and the bare code as `sms`; Termii returns a message id and keeps no pin to verify.
          const from = whatsAppSender();
          const issued = issueWhatsAppCode(resolved.apiKey(), resolved.pinLength, resolved.pinTimeToLiveMinutes);
          const sent = await client.post(
            'phone.send',
            termiiPaths.send,
            { to, from, sms: issued.code, type: 'plain', channel: 'whatsapp_otp' },
            context,
          );
          // The message id is what Termii's delivery reports name: kept, so a receipt finds this send.
          const messageId = requiredText(`${name} phone.send`, sent, ['message_id', 'messageId']);
          return { requestId: issued.requestId, messageId };
        }
        if (parsed.channel === 'sms' && resolved.smsCodes === 'messaging') {
          // Send message on the code route, with a code we make: its answer names the message id Termii's delivery
          // reports carry, so a report of this code finds its flow (Send Token's answer names only the pinId).
          const from = senderOf(parsed.from);
          const issued = issueSmsCode(resolved.apiKey(), resolved.pinLength, resolved.pinTimeToLiveMinutes);
          const text = resolved.messageTemplates(parsed.locale, parsed.channel) ?? resolved.messageText;
          const sent = await client.post(
            'phone.send',
            termiiPaths.send,
            { to, from, sms: text.split(pinPlaceholder).join(issued.code), type: 'plain', channel: resolved.otpRoute },
            context,
          );
          const messageId = requiredText(`${name} phone.send`, sent, ['message_id', 'messageId']);
          return { requestId: issued.requestId, messageId };
        }
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
              channel: resolved.otpRoute,
              ...pin,
              pin_placeholder: pinPlaceholder,
              message_text: resolved.messageTemplates(parsed.locale, parsed.channel) ?? resolved.messageText,
            },
            context,
          );
        }
        // Voice Token answers with the message_id its delivery reports name; Send Token documents none.
        const messageId = answer['message_id'];
        return {
          requestId: requiredText(`${name} phone.send`, answer, ['pinId', 'pin_id']),
          ...(typeof messageId === 'string' || typeof messageId === 'number' ? { messageId: String(messageId) } : {}),
        };
      },
      async check(input, context) {
        const parsed = parseProviderInputV1(phoneCheckInputSchemaV1, input);
        if (isLocalCodeRequest(parsed.requestId))
          return checkLocalCode(resolved.apiKey(), parsed.requestId, parsed.code);
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
      // Search (developers.termii.com/search): only with `dndLookup`, whose codes go by the generic route, which a
      // number on Do-Not-Disturb never gets. Termii documents the status `DND blacklisted`; any other is read as not.
      ...(resolved.dndLookup
        ? {
            async reach(input: unknown, context: Parameters<NonNullable<ProviderV1['phone']>['send']>[1]) {
              const parsed = parseProviderInputV1(phoneReachInputSchemaV1, input);
              const answer = await client.get(
                'phone.reach',
                termiiPaths.dndSearch,
                { phone_number: toTermiiNumber(parsed.phoneNumber) },
                context,
              );
              const status = answer['status'];
              if (typeof status !== 'string')
                throw new ProviderProtocolError(`${name} phone.reach: the response has no status`, { field: 'status' });
              return { unreachable: status.trim().toLowerCase() === dndBlacklisted ? (['sms'] as const) : [] };
            },
          }
        : {}),
    },
    sms: {
      ...senderRequirement(resolved.senderId()),
      async send(input, context) {
        const parsed = parseProviderInputV1(smsSendInputSchemaV1, input);
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
        const parsed = parseProviderInputV1(whatsAppSendInputSchemaV1, input);
        const body = {
          to: toTermiiNumber(parsed.phoneNumber),
          from: whatsAppSender(),
          sms: parsed.message,
          type: 'plain',
          channel: 'whatsapp',
        };
        const answer = await client.post('whatsapp.send', termiiPaths.send, body, context);
        return { messageId: requiredText(`${name} whatsapp.send`, answer, ['message_id', 'messageId']) };
      },
    },
    // Termii's delivery reports (docs/providers/termii.md, "Delivery reports").
    webhooks: { parse: parseTermiiDeliveryReport },
  };
  return Object.freeze(provider);
}
