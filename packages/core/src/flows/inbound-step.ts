import { randomBytes } from 'node:crypto';
import type { InboundChannelV1, InboundMessageEventV1, ProviderV1 } from '@verikit/provider';
import { inboundRouteKey } from '../keys/store-keys.js';
import type { SecretBox } from '../secrets/secrets.js';
import type { InboundStep } from './inbound-message.js';

// A phone plan's inbound step (decision 1695): the user proves the number by sending the flow's reference from it,
// by SMS or WhatsApp, to the application's number. Nothing is sent; a message the provider's signed webhook reports
// is routed by the keyed hash of its sender and the reference it carries. The plan that holds the step, and what a
// start checks and reserves for it, are the phone flow's (`phone-flow.ts`).

/** Digits of a reference: 10^8 references per number, against at most 5 wrong ones per number per 10 minutes. */
const inboundReferenceDigits = 8;

/** The references a message's text may carry that are looked up, at most: each is one store read. */
const maxReferencesPerMessage = 3;

/**
 * The reference the engine shows for a flow's inbound step: 8 digits from the keyed hash of the flow id and the
 * step's nonce. Only the engine's secret makes it from what is stored, and it is never stored itself.
 */
function inboundReferenceOf(secrets: SecretBox, flowId: string, nonce: string): string {
  const hash = secrets.hash('inbound:reference', `${flowId}\0${nonce}`);
  return (BigInt(`0x${hash}`) % 10n ** BigInt(inboundReferenceDigits)).toString().padStart(inboundReferenceDigits, '0');
}

/** The keyed hash of a reference sent from `phoneNumber`: a flow's route, and what a message must match. */
function referenceHash(secrets: SecretBox, phoneNumber: string, reference: string): string {
  return secrets.hash('inbound:route', `${phoneNumber}\0${reference}`);
}

/** A new inbound step for a flow verifying `phoneNumber`: a fresh nonce, its reference's hash, the numbers to send to. */
export function newInboundStep(
  provider: ProviderV1,
  secrets: SecretBox,
  start: { flowId: string; now: number; phoneNumber: string; codeTtlMs: number },
  inbound: readonly InboundChannelV1[],
): InboundStep {
  const nonce = randomBytes(16).toString('base64url');
  const reference = inboundReferenceOf(secrets, start.flowId, nonce);
  const to: Partial<Record<InboundChannelV1, string>> = {};
  for (const channel of inbound) to[channel] = provider.inbound!.numberFor(channel);
  return {
    channels: [...inbound],
    to,
    nonce,
    referenceHash: referenceHash(secrets, start.phoneNumber, reference),
    until: start.now + start.codeTtlMs,
  };
}

/**
 * The references a message's text may carry: runs of exactly 8 digits (spaces or dashes between digits removed, as a
 * user may type `5839 2174`), the first three.
 */
export function referencesIn(text: string): string[] {
  const joined = text.slice(0, 1600).replace(/(?<=\d)[ -](?=\d)/g, '');
  const found = new Set<string>();
  for (const match of joined.matchAll(/(?<!\d)\d{8}(?!\d)/g)) {
    found.add(match[0]);
    if (found.size === maxReferencesPerMessage) break;
  }
  return [...found];
}

/** The keyed hashes of the references a message carries, with its sender's number. */
export function referenceHashesOf(secrets: SecretBox, message: InboundMessageEventV1): string[] {
  return referencesIn(message.text).map((reference) => referenceHash(secrets, message.from, reference));
}

/** The route keys of a message's references: where the flow awaiting it is found. */
export function inboundRouteKeysOf(secrets: SecretBox, message: InboundMessageEventV1): string[] {
  return referenceHashesOf(secrets, message).map(inboundRouteKey);
}

/** How a view shows an inbound step: the reference and, per channel, where to send it. */
export interface InboundView {
  /** The reference the user sends (8 digits): shown on screen, never stored. */
  readonly reference: string;
  /** Until when a message verifies. */
  readonly until: number;
  /** Per channel of the step, in the plan's order: where to send the reference, and a link that opens the message. */
  readonly ways: ReadonlyArray<{
    /** The channel to send on: `whatsapp` or `sms`. */
    readonly channel: InboundChannelV1;
    /** The application's number on this channel, E.164. */
    readonly to: string;
    /** The text to send: the reference. */
    readonly text: string;
    /** `https://wa.me/<number>?text=<reference>` (WhatsApp's click to chat), or `sms:<number>?body=<reference>`. */
    readonly link: string;
  }>;
}

/** The view of an inbound step, with its reference made from the nonce by the engine's secret. */
export function inboundViewOf(secrets: SecretBox, flowId: string, step: InboundStep): InboundView {
  const reference = inboundReferenceOf(secrets, flowId, step.nonce);
  return Object.freeze({
    reference,
    until: step.until,
    ways: Object.freeze(
      step.channels.map((channel) => {
        const to = step.to[channel]!;
        const link =
          channel === 'whatsapp' ? `https://wa.me/${to.slice(1)}?text=${reference}` : `sms:${to}?body=${reference}`;
        return Object.freeze({ channel, to, text: reference, link });
      }),
    ),
  });
}
