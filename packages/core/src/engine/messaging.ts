import {
  CapabilityError,
  markParsedV1,
  parseInput,
  requireCapabilityV1,
  type MessageSendResultV1,
  type ProviderCallContextV1,
} from '@verikit/provider';
import type { SendSmsInput, SendWhatsAppInput } from '../inputs/inputs.js';
import { generateFlowId, type SecretBox } from '../secrets/secrets.js';
import { underDeadline, type CallDeadlines } from './call-deadlines.js';
import { callOnce } from './idempotent-call.js';
import { messageOptionsOf, type MessageOptions } from './message-options.js';
import type { EngineSettings } from './options.js';

/** A message handed to the provider, and which provider took it. */
export type MessageResult = MessageSendResultV1 & { provider: string };

/** What sending a message needs beyond the settings: the shared deadlines and the engine's keyed hashes. */
export interface MessageDeps {
  readonly settings: EngineSettings;
  readonly deadlines: CallDeadlines;
  readonly secrets: SecretBox;
}

/**
 * Messages are no flow: each call gets the deadline of every provider call (`effectTimeoutMs`, shared with the calls
 * that start together, decision 1470); past it the send rejects with `ProviderUnavailableError`, even from a provider
 * that ignores its signal. Without the caller's idempotency key each call is a new send under a fresh provider key;
 * with one, the call is made once per key across every instance sharing the store (decision 1660): a repeat with
 * the same parameters gets the first answer and sends nothing.
 */
function sendMessage(
  deps: MessageDeps,
  options: MessageOptions | undefined,
  params: Readonly<Record<string, unknown>>,
  send: (context: ProviderCallContextV1) => Promise<MessageResult>,
): Promise<MessageResult> {
  const { settings, deadlines, secrets } = deps;
  const { idempotencyKey } = messageOptionsOf(options);
  const run = (providerKey: string) =>
    underDeadline(deadlines, settings.policies.effectTimeoutMs, (signal) =>
      send({ signal, idempotencyKey: providerKey, logger: settings.logger }),
    );
  if (idempotencyKey === undefined) return run(`message:${generateFlowId()}`);
  const { store, policies } = settings;
  return callOnce(
    { store, secrets, ttlMs: policies.retentionMs, waitMs: policies.effectTimeoutMs * 2 },
    {
      family: 'message',
      idempotencyKey,
      params,
      run: () => run(`message:${secrets.hash('message-key', idempotencyKey)}`),
      encode: (answer) => JSON.stringify(answer),
      decode: (stored) => JSON.parse(stored) as MessageResult,
    },
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
  deps: MessageDeps,
  rawInput: SendSmsInput,
  options?: MessageOptions,
): Promise<MessageResult> {
  const { settings } = deps;
  const input = parseInput(settings.inputs.sendSms, rawInput);
  const { provider } = settings;
  const from = input.from ?? settings.defaultSender;
  requireCapabilityV1(provider, { capability: 'sms', from });
  return sendMessage(deps, options, { call: 'sendSms', to: input.to, message: input.message, from }, async (context) =>
    resultOf(
      provider.name,
      await provider.sms!.send(
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
  deps: MessageDeps,
  rawInput: SendWhatsAppInput,
  options?: MessageOptions,
): Promise<MessageResult> {
  const { settings } = deps;
  const input = parseInput(settings.inputs.sendWhatsApp, rawInput);
  const { provider } = settings;
  requireCapabilityV1(provider, { capability: 'whatsapp' });
  if (provider.whatsapp!.requires?.includes('sender') === true) {
    throw new CapabilityError("whatsapp without a sender (configure the provider's WhatsApp sender)", provider.name, {
      field: 'from',
    });
  }
  return sendMessage(deps, options, { call: 'sendWhatsApp', to: input.to, message: input.message }, async (context) =>
    resultOf(
      provider.name,
      await provider.whatsapp!.send(markParsedV1({ phoneNumber: input.to, message: input.message }), context),
    ),
  );
}
