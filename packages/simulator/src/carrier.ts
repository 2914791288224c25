import type { FakeMessage } from '@verikit/provider-utils/fake';
import { chance, drawSeconds } from './random.js';
import type { Person } from './population.js';
import type { Channel, Scenario, ScenarioOperator, ScenarioProvider } from './scenario-schema.js';

/** What the carrier did with one message: whether the handset got it, when, and what receipt follows. */
export interface CarrierFate {
  /** Reached the handset (and, for a call, was answered). */
  readonly delivered: boolean;
  /** Why not, when not. */
  readonly reason?: 'network' | 'dnd' | 'opted-out' | 'no-whatsapp' | 'not-answered' | 'no-route';
  /** Ms after the send at which the handset has it (delivered only). */
  readonly arrivesAfterMs: number;
  /** Ms after the send at which the operator's receipt reaches the provider; undefined: no receipt ever. */
  readonly receiptAfterMs: number | undefined;
}

/**
 * The carrier layer between a fake's outbox and the handset: per operator and channel, the chance a message
 * arrives and its delay; DND drops for senders the operator has not registered; WhatsApp only where the person
 * has it; calls answered or not; opt-outs; receipts late or never. Draws come from the person's carrier stream.
 */
export function carrierFate(
  scenario: Scenario,
  person: Person,
  message: FakeMessage,
  sent: { provider: ScenarioProvider; second: number },
): CarrierFate {
  const random = person.carrier;
  const channel = message.channel as Channel;
  const sender = sent.provider.sender;
  const operator = person.operator < 0 ? undefined : scenario.operators[person.operator]!;
  const behaviour = operator?.channels[channel];
  if (operator === undefined || behaviour === undefined)
    return { delivered: false, reason: 'no-route', arrivesAfterMs: 0, receiptAfterMs: undefined };
  // Every draw is made whatever the outcome, so one message's fate never shifts the next one's draws.
  const reached = chance(random, deliveryOf(operator, channel, sent.provider, sent.second));
  const delayMs = Math.round(drawSeconds(random, behaviour.delay) * 1000);
  const answered = channel !== 'voice' || chance(random, operator.channels.voice?.answer ?? 1);
  const reported = behaviour.receipt !== undefined && chance(random, behaviour.receipt.share);
  const receiptDelayMs =
    behaviour.receipt === undefined ? 0 : Math.round(drawSeconds(random, behaviour.receipt.delay) * 1000);
  let reason: CarrierFate['reason'];
  if (channel === 'sms' && person.dnd && !operator.dnd.registeredSenders.includes(message.from ?? sender))
    reason = 'dnd';
  else if (channel === 'sms' && person.optedOut) reason = 'opted-out';
  else if (channel === 'whatsapp' && !person.whatsapp) reason = 'no-whatsapp';
  else if (!reached) reason = 'network';
  else if (!answered) reason = 'not-answered';
  const delivered = reason === undefined;
  return {
    delivered,
    ...(reason === undefined ? {} : { reason }),
    arrivesAfterMs: delayMs,
    receiptAfterMs: reported ? (delivered ? delayMs : 0) + receiptDelayMs : undefined,
  };
}

/**
 * The chance a message of `provider` on `channel` reaches a handset of `operator`, `second`s into the run: the
 * provider's own delivery there (or the channel's), times every degradation window of the provider open then.
 */
export function deliveryOf(
  operator: ScenarioOperator,
  channel: Channel,
  provider: ScenarioProvider,
  second: number,
): number {
  const behaviour = operator.channels[channel];
  if (behaviour === undefined) return 0;
  let delivery = behaviour.providers?.[provider.name]?.delivery ?? behaviour.delivery;
  for (const window of provider.degrades)
    if (
      second >= window.from &&
      (window.to === undefined || second < window.to) &&
      (window.operators === undefined || window.operators.includes(operator.name))
    )
      delivery *= window.delivery;
  return delivery;
}
