import {
  InvalidInputError,
  ProviderProtocolError,
  identitySendOtpInputSchemaV1,
  parseProviderInputV1,
  phoneCheckInputSchemaV1,
  smsSendInputSchemaV1,
  ussdInitiateInputSchemaV1,
  whatsAppSendInputSchemaV1,
  type MessageSendResultV1,
  type PhoneChannel,
  type PhoneCheckResultV1,
  type ProviderV1,
  readPhoneSendInputV1,
} from '@verikit/provider';
import { senderRequirement } from '@verikit/provider-utils';
import type { GatewayOperation } from './endpoints.js';
import type { Envelope } from './envelope.js';
import { readFirstText, readPath } from './field-path.js';
import { createGatewayClient } from './gateway-client.js';
import type { GatewayProviderSettings } from './gateway-settings.js';
import { resolveGatewaySettings } from './gateway-settings-schema.js';
import { createWebhookParser } from './webhook-parser.js';

const alternatives = {
  otp: ['data.otp', 'data.otpCode', 'data.otp_code', 'data.code', 'data.token', 'otp'],
  ussdCode: [
    'data.ussdCode',
    'data.ussd_code',
    'data.ussd',
    'data.shortCode',
    'data.dialCode',
    'data.dialString',
    'ussdCode',
  ],
  reference: ['data.reference', 'data.referenceId', 'data.reference_id', 'data.requestId', 'data.sessionId', 'data.id'],
  requestId: ['data.requestId', 'data.request_id', 'data.requestID', 'data.verificationId', 'requestId'],
  valid: ['data.valid', 'data.verified', 'data.isValid'],
  messageId: ['data.messageId', 'data.message_id', 'data.id'],
} as const;

/**
 * `{ valid: false, reason: 'attempts-exhausted', maxAttempts }` when the sandbox refused a check because the
 * verification is locked (`sandbox.verification: 'locked'` beside the envelope); the service itself never says it.
 */
function sandboxLocked(envelope: Envelope): PhoneCheckResultV1 | undefined {
  if (readPath(envelope, 'sandbox.verification') !== 'locked') return undefined;
  const maxAttempts = readPath(envelope, 'sandbox.maxAttempts');
  return {
    valid: false,
    reason: 'attempts-exhausted',
    ...(Number.isInteger(maxAttempts) && (maxAttempts as number) > 0 ? { maxAttempts: maxAttempts as number } : {}),
  };
}

function exactly(pattern: RegExp): RegExp {
  return new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ''));
}

/**
 * Creates the provider for the verification and messaging service (docs/service.md)
 * over HTTP: USSD OTP, phone verification, BVN/NIN OTP, SMS, WhatsApp, and the USSD_VERIFICATION webhook.
 *
 * Every setting may come from the environment (`GATEWAY_API_KEY`, `GATEWAY_BASE_URL`,
 * `GATEWAY_USSD_BASE_URL`, `GATEWAY_SENDER`), read at each call. Throws an `InvalidInputError` naming the
 * setting or variable when one is missing or malformed; the apiKey is never echoed, logged or put in an error.
 *
 * @example
 * const provider = createGatewayProvider(); // every setting from the environment
 * const explicit = createGatewayProvider({
 *   apiKey: process.env.GATEWAY_API_KEY!,
 *   baseUrl: 'https://api.example.com',
 *   ussdBaseUrl: 'https://ussd.example.com',
 *   defaultSender: 'Acme',
 * });
 */
export function createGatewayProvider(settings: GatewayProviderSettings = {}): ProviderV1 {
  const resolved = resolveGatewaySettings(settings);
  const client = createGatewayClient(resolved);
  const name = resolved.name;
  const mapping = resolved.mapping ?? {};
  const channelField = mapping.phone?.channelField;
  const channels: readonly PhoneChannel[] = Object.freeze(channelField === undefined ? ['sms'] : ['sms', 'voice']);
  const ninPattern = exactly(resolved.ninPattern ?? /^\d{11}$/);
  const bvnPattern = /^\d{11}$/;

  const pathsFor = (configured: string | undefined, defaults: readonly string[]) =>
    configured === undefined ? defaults : [configured];

  function required(operation: GatewayOperation, envelope: Envelope, paths: readonly string[], what: string): string {
    const found = readFirstText(envelope, paths);
    if (found === undefined) {
      const field = paths[0]!;
      const looked = paths.length > 1 ? ` (looked for ${paths.join(', ')})` : '';
      throw new ProviderProtocolError(`gateway ${operation}: the response has no ${what} at ${field}${looked}`, {
        field,
      });
    }
    return found.text;
  }

  function succeeded(operation: GatewayOperation, envelope: Envelope): Envelope {
    if (!envelope.success) throw client.rejected(operation, envelope);
    return envelope;
  }

  function senderOf(from: string | undefined): string {
    const sender = from ?? resolved.defaultSender();
    if (sender === undefined)
      throw new InvalidInputError([
        { field: 'from', message: 'is required: pass from, or set defaultSender (or GATEWAY_SENDER)' },
      ]);
    return sender;
  }

  function messageResult(envelope: Envelope): MessageSendResultV1 {
    const id = readFirstText(envelope, alternatives.messageId);
    return id === undefined ? {} : { messageId: id.text };
  }

  const provider: ProviderV1 = {
    specificationVersion: 'v1',
    name,
    ussd: {
      async initiate(input, context) {
        const { phoneNumber } = parseProviderInputV1(ussdInitiateInputSchemaV1, input);
        const envelope = succeeded(
          'ussd.initiate',
          (await client.post('ussd.initiate', { phoneNumber }, context)).envelope,
        );
        const otp = required('ussd.initiate', envelope, pathsFor(mapping.ussd?.otp, alternatives.otp), 'OTP');
        const ussdCode = required(
          'ussd.initiate',
          envelope,
          pathsFor(mapping.ussd?.ussdCode, alternatives.ussdCode),
          'USSD code',
        );
        const reference = readFirstText(envelope, pathsFor(mapping.ussd?.reference, alternatives.reference));
        return reference === undefined ? { otp, ussdCode } : { otp, ussdCode, reference: reference.text };
      },
    },
    phone: {
      channels,
      async send(input, context) {
        const parsed = readPhoneSendInputV1(provider, input);
        const body: Record<string, unknown> = { from: senderOf(parsed.from), phoneNumber: parsed.phoneNumber };
        // Past requireCapabilityV1: sms, or voice where a channel field is configured.
        if (channelField !== undefined)
          body[channelField] = mapping.phone?.channelValues?.[parsed.channel as 'sms' | 'voice'] ?? parsed.channel;
        const envelope = succeeded('phone.send', (await client.post('phone.send', body, context)).envelope);
        return {
          requestId: required(
            'phone.send',
            envelope,
            pathsFor(mapping.phone?.requestId, alternatives.requestId),
            'requestId',
          ),
        };
      },
      async check(input, context) {
        const { code, requestId } = parseProviderInputV1(phoneCheckInputSchemaV1, input);
        const { envelope } = await client.post('phone.check', { code, requestId }, context);
        // The service answers every failed check with "Error sending OTP": a wrong code is by far the
        // likeliest, so success:false means "not valid" (docs/decisions/0102-phone-check-validity.md).
        // The sandbox alone adds why when the wrong codes are used up (decision 1410).
        if (!envelope.success) return sandboxLocked(envelope) ?? { valid: false };
        const configured = mapping.phone?.valid;
        if (configured !== undefined) {
          const value = readPath(envelope, configured);
          if (typeof value !== 'boolean') {
            throw new ProviderProtocolError(`gateway phone.check: the response has no boolean at ${configured}`, {
              field: configured,
            });
          }
          return { valid: value };
        }
        // Read strictly: the first of the alternatives present decides, and it must be a boolean. A string
        // ("false"), a number (0) or null is a protocol error, never read as valid (finding 11 of the review).
        for (const path of alternatives.valid) {
          const value = readPath(envelope, path);
          if (value === undefined) continue;
          if (typeof value === 'boolean') return { valid: value };
          throw new ProviderProtocolError(`gateway phone.check: ${path} is not a boolean`, { field: path });
        }
        return { valid: true };
      },
    },
    identity: {
      types: Object.freeze(['bvn', 'nin'] as const),
      async sendOtp(input, context) {
        const parsed = parseProviderInputV1(identitySendOtpInputSchemaV1, input);
        const pattern = parsed.idType === 'bvn' ? bvnPattern : ninPattern;
        if (!pattern.test(parsed.number)) {
          throw new InvalidInputError([
            { field: 'number', message: parsed.idType === 'bvn' ? 'must be exactly 11 digits' : 'is not a valid NIN' },
          ]);
        }
        const operation = parsed.idType === 'bvn' ? 'identity.bvn' : 'identity.nin';
        succeeded(
          operation,
          (await client.post(operation, { number: parsed.number, otp: parsed.otp }, context)).envelope,
        );
      },
    },
    sms: {
      ...senderRequirement(resolved.defaultSender()),
      async send(input, context) {
        const parsed = parseProviderInputV1(smsSendInputSchemaV1, input);
        const body = { from: senderOf(parsed.from), message: parsed.message, to: parsed.to };
        return messageResult(succeeded('sms.send', (await client.post('sms.send', body, context)).envelope));
      },
    },
    whatsapp: {
      async send(input, context) {
        const parsed = parseProviderInputV1(whatsAppSendInputSchemaV1, input);
        const body = { message: parsed.message, phoneNumber: parsed.phoneNumber };
        return messageResult(succeeded('whatsapp.send', (await client.post('whatsapp.send', body, context)).envelope));
      },
    },
    webhooks: { parse: createWebhookParser(mapping.webhook) },
  };
  return Object.freeze(provider);
}
