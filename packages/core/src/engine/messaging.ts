import {
  CapabilityError,
  markParsedV1,
  parseInput,
  requireCapabilityV1,
  type MessageSendResultV1,
  type ProviderCallContextV1,
} from '@verikit/provider';
import type { SendSmsInput, SendWhatsAppInput } from '../inputs/inputs.js';
import { generateFlowId } from '../secrets/secrets.js';
import { underDeadline, type CallDeadlines } from './call-deadlines.js';
import type { EngineSettings } from './options.js';

/** A message handed to the provider, and which provider took it. */
export type MessageResult = MessageSendResultV1 & { provider: string };

/**
 * Messages are no flow: each call gets a fresh idempotency key, and the deadline of every provider call
 * (`effectTimeoutMs`, shared with the calls that start together, decision 1470); past it the send rejects with
 * `ProviderUnavailableError`, even from a provider that ignores its signal.
 */
function sendMessage<T>(
  settings: EngineSettings,
  deadlines: CallDeadlines,
  send: (context: ProviderCallContextV1) => Promise<T>,
): Promise<T> {
  const idempotencyKey = `message:${generateFlowId()}`;
  return underDeadline(deadlines, settings.policies.effectTimeoutMs, (signal) =>
    send({ signal, idempotencyKey, logger: settings.logger }),
  );
}

function resultOf(provider: string, result: MessageSendResultV1 | undefined): MessageResult {
  return { provider, ...(result?.messageId ? { messageId: result.messageId } : {}) };
}

/**
 * `verikit.sendSms`: the sender is the call's, else the engine's `defaultSender`, else the provider's.
 * A provider that declares `requires: ['sender']` (it has no default sender) is refused before any
 * request when neither names one: a `CapabilityError` on `from`.
 */
export async function sendSms(
  settings: EngineSettings,
  deadlines: CallDeadlines,
  rawInput: SendSmsInput,
): Promise<MessageResult> {
  const input = parseInput(settings.inputs.sendSms, rawInput);
  const { provider } = settings;
  const from = input.from ?? settings.defaultSender;
  requireCapabilityV1(provider, { capability: 'sms', from });
  return resultOf(
    provider.name,
    await sendMessage(settings, deadlines, (context) =>
      provider.sms!.send(
        markParsedV1({ ...(from === undefined ? {} : { from }), to: input.to, message: input.message }),
        context,
      ),
    ),
  );
}

/**
 * `verikit.sendWhatsApp`. The WhatsApp sender is part of the provider's settings (the call names none), so
 * a provider that declares `requires: ['sender']` cannot send at all: refused before any request.
 */
export async function sendWhatsApp(
  settings: EngineSettings,
  deadlines: CallDeadlines,
  rawInput: SendWhatsAppInput,
): Promise<MessageResult> {
  const input = parseInput(settings.inputs.sendWhatsApp, rawInput);
  const { provider } = settings;
  requireCapabilityV1(provider, { capability: 'whatsapp' });
  if (provider.whatsapp!.requires?.includes('sender') === true) {
    throw new CapabilityError("whatsapp without a sender (configure the provider's WhatsApp sender)", provider.name, {
      field: 'from',
    });
  }
  return resultOf(
    provider.name,
    await sendMessage(settings, deadlines, (context) =>
      provider.whatsapp!.send(markParsedV1({ phoneNumber: input.to, message: input.message }), context),
    ),
  );
}
