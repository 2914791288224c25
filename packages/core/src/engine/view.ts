import type { AnyMachineSnapshot } from 'xstate';
import { flowDefinitions } from '../flows/flow-definitions.js';
import type { FlowStatus } from '../flows/machines.js';
import type { FlowError, FlowKind } from '../flows/shared.js';
import type { IdentityType, PhoneChannel } from '@verikit/provider';
import { maskPhoneNumber } from '../secrets/secrets.js';

/**
 * What a UI renders: a plain, serializable, immutable object. It never holds an apiKey, a full
 * BVN/NIN, a hash or a submitted code. For USSD it holds the OTP and USSD code the user must see,
 * while the user may dial. Times are milliseconds since the epoch.
 */
export interface FlowView {
  readonly id: string;
  readonly kind: FlowKind;
  readonly status: FlowStatus;
  /** True when nothing can change the flow any more. */
  readonly done: boolean;
  /** The user events accepted now (`submit-code`, `resend`, `restart`, `cancel`). */
  readonly allowed: readonly string[];
  /** The phone number, masked: `+234*******678`. */
  readonly phoneNumber?: string;
  readonly channel?: PhoneChannel;
  readonly idType?: IdentityType;
  /** The BVN/NIN, masked: `*******5678`. */
  readonly number?: string;
  readonly attemptsLeft?: number;
  readonly resendAvailableAt?: number;
  readonly expiresAt?: number;
  /** USSD only: the code to dial and the OTP to enter. */
  readonly ussdCode?: string;
  readonly otp?: string;
  readonly error?: FlowError;
  readonly version: number;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** Probe events for `allowed`: guards read only `now` and the event type from them. */
function probe(type: string, now: number): Record<string, unknown> {
  return { type, now, code: '', codeHash: '', otpHash: '' };
}

/** The view of a snapshot as of `now`: what every engine call returns and every subscriber receives. */
export function toView(
  snapshot: AnyMachineSnapshot,
  meta: { id: string; kind: FlowKind; version: number; createdAt: number; updatedAt: number },
  now: number,
): FlowView {
  const context = snapshot.context as Record<string, unknown>;
  const done = snapshot.status === 'done';
  const allowed = done ? [] : flowDefinitions[meta.kind].userEvents.filter((type) => snapshot.can(probe(type, now) as never));
  const view: Record<string, unknown> = {
    id: meta.id,
    kind: meta.kind,
    status: snapshot.value as FlowStatus,
    done,
    allowed,
  };
  if (typeof context.phoneNumber === 'string') view.phoneNumber = maskPhoneNumber(context.phoneNumber);
  if (context.channel !== undefined) view.channel = context.channel;
  if (context.idType !== undefined) view.idType = context.idType;
  if (context.numberMasked !== undefined) view.number = context.numberMasked;
  if (context.attemptsLeft !== undefined) view.attemptsLeft = context.attemptsLeft;
  if (context.resendAvailableAt !== undefined && !done) view.resendAvailableAt = context.resendAvailableAt;
  if (context.expiresAt !== undefined && !done) view.expiresAt = context.expiresAt;
  if (context.ussdCode !== undefined) view.ussdCode = context.ussdCode;
  if (context.otp !== undefined) view.otp = context.otp;
  if (context.error !== undefined) view.error = context.error;
  view.version = meta.version;
  view.createdAt = meta.createdAt;
  view.updatedAt = meta.updatedAt;
  return Object.freeze(view) as unknown as FlowView;
}
