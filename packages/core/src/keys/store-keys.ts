/**
 * Every key name verikit stores under, in one place. Plain functions that return strings: a store
 * puts its own prefix or namespace in front (`verikit:` in memory, `<namespace>::` on Redis).
 *
 * Two layers: the store's own kinds of record (`flow:`, `route:`, `claim:`, `limit:`), and inside
 * them the names the engine gives (`ussd:phone:<hash>`, `sends:phone:<hash>`, `proof:flow:<id>`,
 * `webhook:<delivery id>`). No phone number, identity number or client address is ever part of a
 * key name: callers pass keyed hashes (docs/decisions/0040-number-hashed-in-key-names.md).
 */

/** A flow record, read and compare-and-set by the store. */
export function flowRecordKey(flowId: string): string {
  return `flow:${flowId}`;
}

/** A secondary key (`FlowStore.getRoute`/`setRoute`): a route to a flow, or a delivery marker. */
export function routeRecordKey(key: string): string {
  return `route:${key}`;
}

/** A claim (`FlowStore.claim`): taken once while it lives. */
export function claimRecordKey(key: string): string {
  return `claim:${key}`;
}

/** A fixed-window limit (`FlowStore.consume`). */
export function limitRecordKey(key: string): string {
  return `limit:${key}`;
}

/** The key part that stands for a phone number: its keyed hash (`phone:<hash>`). */
export function phoneNumberKeyPart(numberHash: string): string {
  return `phone:${numberHash}`;
}

/**
 * The key part that stands for a phone number in store key names (`ussd:<hash>`, `sends:phone:<hash>`): an HMAC with
 * a key derived from the engine's secret (`secrets` is the engine's `SecretBox`), as the BVN/NIN's `numberHash`. Store
 * key names show up in `SCAN` output, slow logs, metrics and backups, where a number in clear would be personal data;
 * the hash is stable for one secret, so every instance finds the same key, and cannot be reversed by trying every
 * number without the secret.
 */
export function phoneNumberKey(secrets: { hash(domain: string, value: string): string }, phoneNumber: unknown): string {
  return phoneNumberKeyPart(secrets.hash('number:phone', String(phoneNumber)));
}

/** The route from a phone number's key part to its active USSD flow, which the USSD result is applied to. */
export function ussdRouteKey(numberKeyPart: string): string {
  return `ussd:${numberKeyPart}`;
}

/** The hourly send limit of one subject (a phone number's or an identity number's key part). */
export function sendsLimitKey(subjectKeyPart: string): string {
  return `sends:${subjectKeyPart}`;
}

/** A flow's one redemption, claimed by the redeem that wins (docs/security.md). */
export function proofRedemptionKey(flowId: string): string {
  return `proof:flow:${flowId}`;
}

/** Readable: the flow's proof was redeemed, so `issueProof` refuses. */
export function proofRedeemedKey(flowId: string): string {
  return `proof:redeemed:${flowId}`;
}

/**
 * What a call with an idempotency key was first made with, and its answer once it has one (`sendSms`, `sendWhatsApp`,
 * a user event; a start's `startIdempotencyKey` with `:params`): `hash` is a keyed hash of the call family and the key.
 */
export function idempotentCallKey(hash: string): string {
  return `idem:${hash}`;
}

/** The one claim of a call with an idempotency key: whoever takes it makes the call. */
export function idempotentCallClaimKey(callKey: string): string {
  return `${callKey}:claim`;
}

/** The parameters a start with an idempotency key was made with (keyed hashes per field). */
export function startParamsKey(startKey: string): string {
  return `${startKey}:params`;
}

/** The flow a start with one idempotency key (and owner) created; `hash` is a keyed hash of both. */
export function startIdempotencyKey(hash: string): string {
  return `start:key:${hash}`;
}

/** The claim marker of a start with an idempotency key (`startIdempotencyKey`): `retry:<n>` after attempt `n` was refused. */
export function startClaimMarkerKey(startKey: string): string {
  return `${startKey}:taken`;
}

/** The claim of one attempt at a start with an idempotency key, held while that start runs. */
export function startClaimAttemptKey(startKey: string, attempt: number): string {
  return `${startClaimMarkerKey(startKey)}:${attempt}`;
}

/**
 * The fence of one attempt at a start with an idempotency key: claimed by that attempt just before it writes its flow,
 * or by a retry that takes the start over from an attempt that wrote nothing (decision 1542). Whoever claims it first
 * decides: the other never writes.
 */
export function startFenceKey(startKey: string, attempt: number): string {
  return `${startClaimMarkerKey(startKey)}:${attempt}:fence`;
}

/** The live flow of one owner for a kind and a number; `hash` is a keyed hash of the three. */
export function startLiveKey(hash: string): string {
  return `start:live:${hash}`;
}

/** The marker of an inbound event: `done` once applied, `retry:<n>` after attempt `n` failed. */
export function inboundEventMarkerKey(deliveryId: string): string {
  return `webhook:${deliveryId}`;
}

/** The claim of one attempt at applying an inbound event, held by the one process that runs it. */
export function inboundEventAttemptKey(deliveryId: string, attempt: number): string {
  return `${inboundEventMarkerKey(deliveryId)}:${attempt}`;
}

/**
 * The route from a provider's message or request id (its keyed hash) to the flow whose send it was:
 * the flow a delivery receipt for that message is applied to.
 */
export function deliveryRouteKey(messageIdHash: string): string {
  return `delivery:message:${messageIdHash}`;
}

/** Prefix of the send guard's counters of one limit (`guard:per-client`). */
export function guardLimitKeyPrefix(limitName: string): string {
  return `guard:${limitName}`;
}

/** Prefix of the channels the change bus publishes a flow's changes on (`changes:<flowId>`). */
export const changeChannelPrefix = 'changes:';

/** The route from a dial-in reference's keyed hash (with the number verified, if any) to its flow. */
export function dialInRouteKey(referenceHash: string): string {
  return `dial-in:${referenceHash}`;
}

/** The route from an inbound step's reference hash (with the number verified) to its flow (decision 1695). */
export function inboundRouteKey(referenceHash: string): string {
  return `inbound:${referenceHash}`;
}

/** The claim that keeps an inbound step's reference hash to one live flow, as a dial-in's (decision 1440). */
export function inboundReservationKey(referenceHash: string): string {
  return `inbound-reserved:${referenceHash}`;
}

/** The claim that keeps a dial-in reference's keyed hash to one live flow (decision 1440). */
export function dialInReservationKey(referenceHash: string): string {
  return `dial-in-reserved:${referenceHash}`;
}

/**
 * The two keys of the event webhook's outbox on a shared store: `due` (event ids by due time) and `tries`
 * (attempts per id). One hash tag, so both live in one Redis Cluster slot and one script may touch both.
 */
export function eventOutboxKey(part: 'due' | 'tries'): string {
  return `events:{outbox}:${part}`;
}

/**
 * One shard of the flows' timers on a shared store: a sorted set of flow ids by due time. Its own hash tag per
 * shard, so on Redis Cluster the shards spread over the slots (and masters) and each script touches one key.
 */
export function flowTimersKey(shard: number): string {
  return `timers:{timers-${shard}}`;
}

/** The claim of a send a flow's timer committed: whoever holds it makes the send (docs/decisions/1561-plans-that-escalate-on-time.md). */
export function timerSendClaimKey(effectId: string): string {
  return `timer-send:${effectId}`;
}
