import {
  InvalidInputError,
  parseInput,
  parseProviderInputV1,
  phoneCheckInputSchemaV1,
  ProviderProtocolError,
  ProviderRejectedError,
  type PhoneChannel,
  type PhoneCheckResultV1,
  smsSendInputSchemaV1,
  whatsAppSendInputSchemaV1,
  type ProviderV1,
  readPhoneSendInputV1,
} from '@verikit/provider';
import { checkKeyedCode, isKeyedCodeRequest, issueKeyedCode, senderRequirement } from '@verikit/provider-utils';
import { createTwilioClient, requiredSid, type TwilioAnswer } from './twilio-client.js';
import { localeSchema, twilioSenderSchema, verificationSidPattern, whatsappAddress } from './twilio-format.js';
import type { TwilioProviderSettings } from './twilio-settings.js';
import { resolveTwilioSettings } from './twilio-settings-schema.js';
import { parseTwilioStatusCallback } from './twilio-status-callback.js';
import { whatsappCodeDigits, whatsappCodeScheme, whatsappCodeTtlMinutes, whatsappContent } from './twilio-whatsapp.js';

const channels: readonly PhoneChannel[] = Object.freeze(['sms', 'voice', 'whatsapp']);
/** Verify's channel names for ours. */
const verifyChannel: Record<PhoneChannel, string> = { sms: 'sms', voice: 'call', whatsapp: 'whatsapp' };

/**
 * How a VerificationCheck reads, strictly by Twilio's documented types (`status` a string, the legacy `valid` a
 * boolean or absent): `approved` is valid (unless `valid` says false); `expired`, `max_attempts_reached` and the
 * other ended statuses are the flow's own state (a reason), not errors; `pending` is a wrong code. A `status`
 * that is not a string, or a `valid` that is not a boolean, is a `ProviderProtocolError`, never read as valid.
 */
function readVerificationCheck(answer: TwilioAnswer): PhoneCheckResultV1 {
  const status = answer['status'];
  const valid = answer['valid'];
  if (typeof status !== 'string')
    throw new ProviderProtocolError('twilio phone.check: status is not a string', { field: 'status' });
  if (valid !== undefined && valid !== null && typeof valid !== 'boolean')
    throw new ProviderProtocolError('twilio phone.check: valid is not a boolean', { field: 'valid' });
  if (status === 'approved' && valid !== false) return { valid: true };
  if (status === 'expired') return { valid: false, reason: 'expired' };
  if (status === 'max_attempts_reached') return { valid: false, reason: 'attempts-exhausted' };
  if (status === 'canceled' || status === 'deleted' || status === 'failed' || status === 'approved')
    return { valid: false, reason: 'not-pending' };
  return { valid: false };
}

/**
 * Creates the Twilio provider: phone verification on Twilio Verify v2 (Verifications and VerificationCheck;
 * channels sms, call and whatsapp; locale; a code of ours where custom codes are enabled), SMS and WhatsApp on
 * Programmable Messaging (`whatsapp:` addresses). Form-encoded bodies, Basic auth with the account SID and auth
 * token or an API key pair. No USSD and no BVN/NIN: those capabilities are absent. Callbacks are checked
 * with `createTwilioSignatureVerifier`.
 *
 * Every setting may come from the environment (`TWILIO_ACCOUNT_SID`, `TWILIO_AUTH_TOKEN`,
 * `TWILIO_VERIFY_SERVICE_SID`, …), read at each call. Bad settings throw an `InvalidInputError` naming the setting.
 *
 * @example
 * const provider = createTwilioProvider(); // TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_VERIFY_SERVICE_SID
 */
export function createTwilioProvider(settings: TwilioProviderSettings = {}): ProviderV1 {
  const resolved = resolveTwilioSettings(settings);
  const client = createTwilioClient(resolved);
  const name = resolved.name;

  function verifyPaths(operation: 'Verifications' | 'VerificationCheck'): { url: string; path: string } {
    const service = resolved.verifyServiceSid();
    if (service === undefined) {
      throw new InvalidInputError([
        {
          field: 'verifyServiceSid',
          message: 'is required for phone verification: pass it, or set TWILIO_VERIFY_SERVICE_SID',
        },
      ]);
    }
    const path = `/v2/Services/${service}/${operation}`;
    return { url: resolved.verifyBaseUrl() + path, path };
  }
  function messagesPath(): { url: string; path: string } {
    const path = `/2010-04-01/Accounts/${resolved.accountSid()}/Messages.json`;
    return { url: resolved.apiBaseUrl() + path, path };
  }
  /** Posts one message (SMS or WhatsApp), with the status callback URL when one is configured. */
  async function postMessage(
    operation: 'phone.send' | 'sms.send' | 'whatsapp.send',
    fields: Readonly<Record<string, string | undefined>>,
    context: Parameters<NonNullable<ProviderV1['sms']>['send']>[1],
  ): Promise<string> {
    const { url, path } = messagesPath();
    const answer = await client.post(
      operation,
      url,
      path,
      { ...fields, StatusCallback: resolved.statusCallbackUrl() },
      context,
    );
    return requiredSid(`${name} ${operation}`, answer, 'sid');
  }
  function whatsappSender(): string {
    const from = resolved.whatsappFrom();
    if (from === undefined)
      throw new InvalidInputError([
        { field: 'whatsappFrom', message: 'is required: configure whatsappFrom, or set TWILIO_WHATSAPP_FROM' },
      ]);
    return whatsappAddress(from);
  }
  const provider: ProviderV1 = {
    specificationVersion: 'v1',
    name,
    phone: {
      channels,
      customCode: resolved.customCode,
      async send(input, context) {
        const parsed = readPhoneSendInputV1(provider, input);
        // Verify takes a language and at most one subtag (`pt-BR`); the spec allows more.
        const locale =
          parsed.locale === undefined ? resolved.locale : parseInput(localeSchema, parsed.locale, 'locale');
        if (parsed.channel === 'whatsapp' && resolved.whatsappCodes === 'messaging') {
          // A code we make, sent from our WhatsApp sender (its template), checked against the requestId's keyed hash.
          const issued = issueKeyedCode(
            whatsappCodeScheme,
            client.credentials().password,
            whatsappCodeDigits,
            whatsappCodeTtlMinutes,
            Date.now(),
            parsed.code,
          );
          const content = whatsappContent(resolved, issued.code, `Your verification code is: ${issued.code}`, locale);
          const To = whatsappAddress(parsed.phoneNumber);
          const messageId = await postMessage('phone.send', { To, From: whatsappSender(), ...content }, context);
          return { requestId: issued.requestId, messageId };
        }
        const { url, path } = verifyPaths('Verifications');
        const fields = {
          To: parsed.phoneNumber,
          Channel: verifyChannel[parsed.channel],
          Locale: locale,
          CustomCode: parsed.code,
          // Verify appends it to the SMS it writes (SMS only).
          AppHash: parsed.channel === 'sms' ? resolved.appHash : undefined,
        };
        const answer = await client.post('phone.send', url, path, fields, context);
        // Twilio keeps one verification per number while it is pending: a resend answers the same SID (and
        // the same code). The n-th send gets `.n` after the SID, so each send has its own requestId.
        const sid = requiredSid(`${name} phone.send`, answer, 'sid');
        const sends = Array.isArray(answer['send_code_attempts']) ? answer['send_code_attempts'].length : 1;
        return { requestId: sends > 1 ? `${sid}.${sends}` : sid };
      },
      async check(input, context) {
        const parsed = parseProviderInputV1(phoneCheckInputSchemaV1, input);
        if (isKeyedCodeRequest(whatsappCodeScheme, parsed.requestId))
          return checkKeyedCode(whatsappCodeScheme, client.credentials().password, parsed.requestId, parsed.code);
        // Twilio could not know a requestId that is not a Verification SID: refused without a request.
        const sid = verificationSidPattern.exec(parsed.requestId)?.[1];
        if (sid === undefined)
          throw new ProviderRejectedError(`${name} phone.check: the requestId is not a Twilio Verification SID`);
        const { url, path } = verifyPaths('VerificationCheck');
        let ended: PhoneCheckResultV1 | undefined;
        const answer = await client.post(
          'phone.check',
          url,
          path,
          { VerificationSid: sid, Code: parsed.code },
          context,
          (failure) => {
            // 404 (20404): the verification is no longer pending (approved, expired or cancelled). 60202: its
            // check attempts are used up. Both are the flow's own state, not failures of the call.
            if (failure.status === 404) ended = { valid: false, reason: 'not-pending' };
            if (failure.code === 60202) ended = { valid: false, reason: 'attempts-exhausted' };
            return ended;
          },
        );
        return ended ?? readVerificationCheck(answer as TwilioAnswer);
      },
    },
    sms: {
      ...senderRequirement(resolved.from(), resolved.messagingServiceSid()),
      async send(input, context) {
        const parsed = parseProviderInputV1(smsSendInputSchemaV1, input);
        const given = parsed.from === undefined ? undefined : parseInput(twilioSenderSchema, parsed.from, 'from');
        const from = given ?? (resolved.messagingServiceSid() === undefined ? resolved.from() : undefined);
        const service = given === undefined ? resolved.messagingServiceSid() : undefined;
        if (from === undefined && service === undefined) {
          throw new InvalidInputError([
            {
              field: 'from',
              message: 'is required: pass from, or configure from (TWILIO_FROM) or messagingServiceSid',
            },
          ]);
        }
        const fields = { To: parsed.to, From: from, MessagingServiceSid: service, Body: parsed.message };
        return { messageId: await postMessage('sms.send', fields, context) };
      },
    },
    whatsapp: {
      async send(input, context) {
        const parsed = parseProviderInputV1(whatsAppSendInputSchemaV1, input);
        const From = whatsappSender();
        const content = whatsappContent(resolved, parsed.message, parsed.message, resolved.locale);
        const To = whatsappAddress(parsed.phoneNumber);
        return { messageId: await postMessage('whatsapp.send', { To, From, ...content }, context) };
      },
    },
    // Users send to the account's SMS number (`from`) or WhatsApp sender: a plan's inbound steps (decision 1695).
    inbound: {
      channels: Object.freeze(['sms', 'whatsapp'] as const),
      numberFor(channel) {
        const number = channel === 'sms' ? resolved.from() : resolved.whatsappFrom();
        if (number === undefined || !/^\+[1-9]\d{6,14}$/.test(number))
          throw new InvalidInputError([
            channel === 'sms'
              ? {
                  field: 'from',
                  message: 'must be the Twilio number users text (E.164) for an sms-inbound step: set TWILIO_FROM',
                }
              : { field: 'whatsappFrom', message: 'is required for a whatsapp-inbound step: set TWILIO_WHATSAPP_FROM' },
          ]);
        return number;
      },
    },
    // With a status callback URL, Twilio posts each message's status there: parsed into delivery receipts. Incoming
    // messages have a route of their own (`createTwilioInboundMessageVerifier`, docs/providers/twilio.md).
    ...(resolved.statusCallbackUrl() === undefined ? {} : { webhooks: { parse: parseTwilioStatusCallback } }),
  };
  return Object.freeze(provider);
}
