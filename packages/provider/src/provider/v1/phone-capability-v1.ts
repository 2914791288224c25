import { z } from 'zod';
import { codeSchema, localeSchema, phoneNumberSchema, requestIdSchema, senderSchema } from '../../schemas.js';
import type { ProviderCallContextV1 } from './provider-call-context-v1.js';

/**
 * The channels by which a phone verification code can travel. Each provider declares the ones it has
 * in {@link PhoneCapabilityV1.channels}; a flow on another channel fails at start with a `CapabilityError`.
 */
export type PhoneChannel = 'sms' | 'voice' | 'whatsapp';

/** Send a verification code to a phone number. */
export interface PhoneSendInputV1 {
  /** The recipient, in E.164 (`+2348012345678`). */
  readonly phoneNumber: string;
  /** The sender ID or number the code comes from. Absent: the provider's default. */
  readonly from?: string;
  /** How the code travels; always one of the provider's declared `channels`. */
  readonly channel: PhoneChannel;
  /**
   * A code we generated, for providers that declare {@link PhoneCapabilityV1.customCode}. Absent: the
   * provider makes the code. A provider without `customCode` refuses it with a `CapabilityError`.
   */
  readonly code?: string;
  /** The language of the message, as a BCP 47 tag (`en`, `fr`, `pt-BR`), where the provider can choose it. */
  readonly locale?: string;
  /**
   * The requestId of the send this one repeats (a resend). Providers that choose among several (failover,
   * composition) send a resend by the provider that sent the first code, so the user hears from one sender.
   */
  readonly resendOf?: string;
}

/** What a phone send returns. */
export interface PhoneSendResultV1 {
  /**
   * Ties a later check to this send. A provider that chose among several encodes its choice in it, so a
   * check on any instance goes to the provider that sent the code.
   */
  readonly requestId: string;
  /**
   * The provider's id of the message that carries the code, when its delivery receipts name the message
   * rather than the `requestId` (Termii's `message_id`). The engine routes receipts by either.
   */
  readonly messageId?: string;
  /** The name of the provider that sent the code, when the provider chose among several (for logs and views). */
  readonly sentBy?: string;
}

/** Check the code a user entered against an earlier send. */
export interface PhoneCheckInputV1 {
  /** The `requestId` the send returned, unchanged. */
  readonly requestId: string;
  /** The code as the user typed it; the provider compares it, verikit never stores it. */
  readonly code: string;
}

/**
 * Why a code is not valid, when the provider knows more than "wrong code": the verification `expired`,
 * its check attempts are `attempts-exhausted`, or it is `not-pending` any more (already approved, expired
 * or cancelled; the provider cannot tell which). The engine maps these onto the flow's own state.
 */
export type PhoneCheckReasonV1 = 'expired' | 'attempts-exhausted' | 'not-pending';

/** Whether the code matched. */
export interface PhoneCheckResultV1 {
  /** True when the code matched and the verification is now approved. */
  readonly valid: boolean;
  /** Set only when `valid` is false and the provider said why; absent for a plain wrong code. */
  readonly reason?: PhoneCheckReasonV1;
  /**
   * With `reason: 'attempts-exhausted'`, when the provider says it: the wrong codes it allows per code (the
   * gateway's sandbox does). The engine names it in `verikit.flow.attempts-differ` when it locked the flow
   * before the engine's own `maxAttempts` would have.
   */
  readonly maxAttempts?: number;
}

/**
 * The schema of {@link PhoneSendInputV1}; unknown fields ignored, as for `smsSendInputSchemaV1`. Whether the
 * provider has the channel, or takes a `code`, is its own check after the parse (a `CapabilityError`).
 */
export const phoneSendInputSchemaV1 = z.object({
  /** The recipient, in E.164. */
  phoneNumber: phoneNumberSchema,
  /** The sender; absent: the provider's default. */
  from: senderSchema.optional(),
  /** How the code travels. */
  channel: z.literal(['sms', 'voice', 'whatsapp'], { error: 'must be sms, voice or whatsapp' }),
  /** A code we generated, 4 to 10 digits. */
  code: codeSchema.optional(),
  /** The language of the message, a BCP 47 tag. */
  locale: localeSchema.optional(),
  /** The requestId of the send this one repeats. */
  resendOf: z.string({ error: 'must be a string' }).max(512, { error: 'must be at most 512 characters' }).optional(),
}) satisfies z.ZodType<PhoneSendInputV1>;

/** The schema of {@link PhoneCheckInputV1}; unknown fields ignored, as for `smsSendInputSchemaV1`. */
export const phoneCheckInputSchemaV1 = z.object({
  /** The requestId the send returned. */
  requestId: requestIdSchema,
  /** The code as the user typed it: 4 to 10 digits. */
  code: codeSchema,
}) satisfies z.ZodType<PhoneCheckInputV1>;

/** Ask what the provider knows of a number before a flow's first send (`PhoneCapabilityV1.reach`). */
export interface PhoneReachInputV1 {
  /** The recipient, in E.164. */
  readonly phoneNumber: string;
}

/** What the provider knows of a number's reach. */
export interface PhoneReachResultV1 {
  /**
   * The channels by which this provider's code cannot reach the number now, as far as it knows (Termii: SMS to a
   * number on Do-Not-Disturb when its codes go by the generic route). Empty when it knows of none.
   */
  readonly unreachable: readonly PhoneChannel[];
}

/** The schema of {@link PhoneReachInputV1}; unknown fields ignored. */
export const phoneReachInputSchemaV1 = z.object({
  /** The recipient, in E.164. */
  phoneNumber: phoneNumberSchema,
}) satisfies z.ZodType<PhoneReachInputV1>;

/** Phone verification where the provider generates and checks the code. */
export interface PhoneCapabilityV1 {
  /** The channels this provider can send a code by. */
  readonly channels: readonly PhoneChannel[];
  /** True when `send` accepts a code we generated (`PhoneSendInputV1.code`). Absent means false. */
  readonly customCode?: boolean;
  /** Sends a code; the returned `requestId` is what `check` needs. */
  send(input: PhoneSendInputV1, context: ProviderCallContextV1): Promise<PhoneSendResultV1>;
  /** Checks a code; a wrong code is `valid: false`, not an error. */
  check(input: PhoneCheckInputV1, context: ProviderCallContextV1): Promise<PhoneCheckResultV1>;
  /**
   * Optional: looks the number up (one request, which the provider may charge for) and says which channels cannot
   * reach it. The engine asks before a flow's first send when the plan has several channels, and leaves those
   * channels out of the flow's plan (docs/plans.md, "Plans that know the number"). Absent: the provider knows nothing.
   */
  reach?(input: PhoneReachInputV1, context: ProviderCallContextV1): Promise<PhoneReachResultV1>;
  /**
   * Optional: told that a delivery receipt the engine committed to a flow said its newest code arrived (`requestId`:
   * what `send` returned for it). Nothing is sent or charged; the engine does not wait for it and logs a rejection.
   * A failover with a learning router counts it for the route that sent (docs/routing.md).
   */
  delivered?(input: PhoneDeliveredInputV1, context: Pick<ProviderCallContextV1, 'logger'>): Promise<void>;
}

/** What {@link PhoneCapabilityV1.delivered} is told: which send's code arrived. */
export interface PhoneDeliveredInputV1 {
  /** The requestId the send returned. */
  readonly requestId: string;
  /** The flow's sends so far, that one included: 1 when the code that arrived was the flow's first. */
  readonly sends: number;
}
