import type { IdentityType } from '@verikit/provider';
import { FlowNotVerifiedError } from '../errors/flow-not-verified-error.js';
import type { FlowContextBase, FlowKind } from '../flows/flow-context.js';
import type { PassedStep } from '../flows/identity-ladder.js';
import type { FlowRecord } from '../store/flow-store.js';

/**
 * How a flow verified, as its proof carries it (docs/security.md, "a proof says how"): `phone` (a code sent by the
 * provider, then typed), `ussd` (the user dialled the code shown), `identity` (an OTP to the BVN/NIN's phone),
 * `dial-in` (the carrier reported a dial of the reference from the number the flow was started for), and
 * `dial-in-identify` (a "who is this" dial-in flow, started without a number: it proves only that *someone* dialled
 * the reference, from the number it names, so whoever was talked into dialling it is who the proof names).
 * `redeemProof` accepts `dial-in-identify` only when the app names it in `methods`. `sms-inbound` and
 * `whatsapp-inbound`: the user sent the flow's reference from the number, by SMS or WhatsApp (a phone plan's inbound
 * step). `sms-inbound` is opt-in too: an SMS network's sender number can be forged on some routes (docs/abuse.md),
 * and whoever started the flow saw its reference (decision 1800).
 */
export type VerificationMethod =
  | 'phone'
  | 'ussd'
  | 'identity'
  | 'dial-in'
  | 'dial-in-identify'
  | 'sms-inbound'
  | 'whatsapp-inbound';

/**
 * The methods `redeemProof` accepts only when the app names them in `methods`, and why each is refused otherwise:
 * each proves less than the number the flow names.
 */
const optInMethods: Readonly<Partial<Record<VerificationMethod, string>>> = Object.freeze({
  'dial-in-identify': 'a "who is this" dial-in names whoever dialled its reference',
  'sms-inbound': 'SMS sender numbers can be forged',
});

/** Every method but the opt-in ones (`dial-in-identify`, `sms-inbound`): what `redeemProof` accepts when the app names none. */
export const defaultProofMethods: readonly VerificationMethod[] = Object.freeze([
  'phone',
  'ussd',
  'identity',
  'dial-in',
  'whatsapp-inbound',
]);

/** What a refusal of a proof of `method` says (safe to show: it names the method, never the flow or the number). */
export function methodRefusal(method: VerificationMethod): string {
  const why = optInMethods[method];
  return why === undefined
    ? `${method} proofs are refused: this endpoint's methods do not name it`
    : `${method} proofs are refused unless named in methods: ${why}`;
}

/**
 * What a verified flow verified, for the backend only: never in a view, never logged. Phone and
 * USSD flows name the full number; an identity flow, which never keeps the BVN/NIN in the clear
 * once verified, names it by its keyed hash.
 */
export interface Verification {
  /** The flow that verified. */
  readonly flowId: string;
  /** How the user verified: USSD dial, phone code or BVN/NIN. */
  readonly kind: FlowKind;
  /** How the flow verified, finer than `kind`: a "who is this" dial-in is `dial-in-identify`. */
  readonly method: VerificationMethod;
  /** The verified phone number, full E.164 (phone, ussd). */
  readonly phoneNumber?: string;
  /** identity only. */
  readonly idType?: IdentityType;
  /** identity only: the keyed hash of the BVN/NIN (HMAC-SHA256 under the engine's secret, 32 hex characters). */
  readonly numberHash?: string;
  /**
   * identity only: the steps the flow passed, in order, and how (who answered, booleans): never the data. An
   * identity flow without a ladder passed `otp` alone.
   */
  readonly steps?: readonly PassedStep[];
  /** When the flow became verified (engine clock, ms since the epoch). */
  readonly verifiedAt: number;
  /** The name of the provider that delivered the code. */
  readonly provider: string;
}

/**
 * The verification a stored flow holds; a `FlowNotVerifiedError` unless it is verified. A record
 * verified before flows kept `verifiedAt` and `sentBy` falls back to its last change and `provider`.
 */
export function verificationOf(record: FlowRecord, status: string, provider: string): Verification {
  if (status !== 'verified') throw new FlowNotVerifiedError(record.id, status);
  const context = record.context as FlowContextBase & Record<string, unknown>;
  const base = {
    flowId: record.id,
    kind: record.kind,
    method: methodOf(record.kind, context.mode, context.verifiedBy),
    verifiedAt: context.verifiedAt ?? record.updatedAt,
    provider: context.sentBy ?? provider,
  };
  if (record.kind === 'identity') {
    return Object.freeze({
      ...base,
      idType: context.idType as IdentityType,
      numberHash: String(context.numberHash),
      steps: passedStepsOf(context),
    });
  }
  return Object.freeze({ ...base, phoneNumber: String(context.phoneNumber) });
}

/**
 * The method of a flow of `kind` (a dial-in flow's `mode` tells a "who is this" flow; a phone flow's `verifiedBy`
 * one an inbound message verified).
 */
export function methodOf(kind: FlowKind, mode: unknown, verifiedBy?: unknown): VerificationMethod {
  if (kind === 'phone' && (verifiedBy === 'sms-inbound' || verifiedBy === 'whatsapp-inbound')) return verifiedBy;
  return kind === 'dial-in' && mode !== 'match' ? 'dial-in-identify' : kind;
}

/** The steps an identity flow passed: its ladder's record, or `otp` alone for a flow without a ladder. */
function passedStepsOf(context: Record<string, unknown>): readonly PassedStep[] {
  if (Array.isArray(context.passed)) return Object.freeze([...(context.passed as PassedStep[])]);
  const by = typeof context.sentBy === 'string' ? { by: context.sentBy } : {};
  return Object.freeze([{ step: 'otp', ...by }]);
}
