import { z } from 'zod';
import {
  codeSchema,
  InvalidInputError,
  flowIdSchema,
  identityNumberSchema,
  maxSelfieBytes,
  parseInput,
  phoneNumberReader,
  phoneNumberSchemaFor,
  type PhoneNumberReader,
  type PhoneNumberReading,
  senderSchema,
  smsMessageSchema,
  whatsAppMessageSchema,
  type PhoneNumberUse,
} from '@verikit/provider';
import { claimsSchemaFor, identityStepSchema } from './identity-claims.js';

/**
 * A value built on its first use rather than when its module is imported. For the schemas a start-up does not
 * need (proofs, provider deliveries, call options, the event webhook's options): `import '@verikit/core'` then builds
 * only the public ones (decision 1362).
 */
export function onFirstUse<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= build());
}

/**
 * Checks a flow id before anything touches the store: a malformed id is an `InvalidInputError` on
 * `flowId`, never a "flow not found" (docs/decisions/0400-malformed-flow-id-is-400.md). The engine and
 * the HTTP layer check ids with this one function, so both answer alike.
 */
export function parseFlowId(flowId: unknown): string {
  return parseInput(flowIdSchema, flowId, 'flowId');
}

/** A channel a phone code travels by. */
const phoneChannelSchema = z.literal(['sms', 'voice', 'whatsapp'], { error: 'must be sms, voice or whatsapp' });

/** A step of a phone plan: a channel a code travels by, or one the user sends the flow's reference on. */
const planStepSchema = z.literal(['sms', 'voice', 'whatsapp', 'sms-inbound', 'whatsapp-inbound'], {
  error: 'must be sms, voice, whatsapp, sms-inbound or whatsapp-inbound',
});

/** How a number must be usable for a plan step: an inbound step's channel. */
function numberUseOf(step: z.output<typeof planStepSchema>): PhoneNumberUse {
  return step === 'sms-inbound' ? 'sms' : step === 'whatsapp-inbound' ? 'whatsapp' : step;
}

/** The part of a phone start its number's check reads: the number in E.164 and the plan. */
interface PhonePlan {
  readonly phoneNumber: string;
  readonly channel?: z.output<typeof phoneChannelSchema> | undefined;
  readonly channels?: readonly z.output<typeof planStepSchema>[] | undefined;
}

/**
 * Why the number (E.164) cannot be used by the plan's first channel it fails, or undefined when every channel can
 * use it: which kinds of number are accepted depends on the channels, so it is read again for each (by `read`,
 * which parses it once for them all).
 */
function planNumberProblem(
  input: PhonePlan,
  read: PhoneNumberReader,
): Extract<PhoneNumberReading, { ok: false }> | undefined {
  for (const step of input.channels ?? [input.channel ?? 'sms']) {
    const reading = read(input.phoneNumber, { use: numberUseOf(step) });
    if (!reading.ok) return reading;
  }
  return undefined;
}

/** A BCP 47 language tag, as providers take it: `en`, `fr`, `pt-BR`, `zh-Hant`. */
const localeSchema = z
  .string()
  .regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8}){0,2}$/, { error: 'must be a language tag such as en, fr or pt-BR' });

/** The number as typed (`+234 801 234 5678`, `0801 234 5678` with a default country), output in E.164. */
const phoneFor = (defaultCountry: string | undefined, use: PhoneNumberUse) =>
  phoneNumberSchemaFor({ defaultCountry, use });

/** A phone start, its number read with `defaultCountry`: the start schema's `phone` member. */
function phoneStartSchemaFor(defaultCountry: string | undefined) {
  return z
    .strictObject({
      /** A phone flow: a code sent by SMS, voice or WhatsApp. */
      kind: z.literal('phone'),
      /** The user's number: E.164, or as typed (parsed into E.164); one that can receive every channel. */
      phoneNumber: phoneFor(defaultCountry, 'any'),
      /** How the code travels, when the flow has one channel. Default `sms`. Not with `channels`. */
      channel: phoneChannelSchema.optional(),
      /**
       * The plan: the channels the code may travel by, in order (`['whatsapp', 'sms', 'voice']`). The first
       * send goes on the first; a resend may switch to any of them; a failed delivery falls back to the next.
       * Inbound steps first (`['whatsapp-inbound', 'sms-inbound', 'sms']`): the user proves the number by
       * sending the flow's reference from it, and nothing is sent until the user asks or `escalateAfterMs`
       * passes (docs/flows.md, "Inbound steps").
       */
      channels: z
        .array(planStepSchema)
        .min(1, { error: 'must name at least one channel' })
        .max(5, { error: 'must name at most 5 channels' })
        .refine((channels) => new Set(channels).size === channels.length, {
          error: 'must not name a channel twice',
        })
        .optional(),
      /** The language of the message, a BCP 47 tag (`en`, `fr`, `pt-BR`): the provider's, and the templates'. */
      locale: localeSchema.optional(),
      /** The sender ID or number the code comes from, where the provider lets you choose. */
      from: senderSchema.optional(),
      /**
       * An escalating plan: after this many ms without a correct code (and once the send's cooldown has
       * passed), the next channel of the plan is sent by itself (docs/plans.md). 15 s to 15 min.
       */
      escalateAfterMs: z
        .number({ error: 'must be a number of milliseconds' })
        .int({ error: 'must be a whole number of milliseconds' })
        .min(15_000, { error: 'must be at least 15000 (15 s)' })
        .max(900_000, { error: 'must be at most 900000 (15 min)' })
        .optional(),
    })
    .superRefine((input, context) => {
      const problem = planNumberProblem(input, phoneNumberReader());
      if (problem === undefined) return;
      context.addIssue({
        code: 'custom',
        path: ['phoneNumber'],
        message: problem.message,
        params: { messageId: problem.messageId },
      });
    });
}

function startSchemaFor(defaultCountry: string | undefined, phoneStart: ReturnType<typeof phoneStartSchemaFor>) {
  return z.discriminatedUnion(
    'kind',
    [
      z.strictObject({
        /** A USSD flow: the user dials a code and enters the OTP shown. */
        kind: z.literal('ussd'),
        /** The user's mobile number: E.164, or as typed (parsed into E.164). */
        phoneNumber: phoneFor(defaultCountry, 'ussd'),
      }),
      phoneStart,
      z.strictObject({
        /** A dial-in flow: the user dials a USSD code with a one-time reference; the carrier reports the number. */
        kind: z.literal('dial-in'),
        /**
         * The number being verified: E.164, or as typed (parsed into E.164); only a dial from it verifies the
         * flow. Absent: the flow records which number dialled ("who is this").
         */
        phoneNumber: phoneFor(defaultCountry, 'ussd').optional(),
      }),
      z
        .strictObject({
          /** An identity flow: a ladder of steps on a BVN or NIN (by default one: a code sent to its phone). */
          kind: z.literal('identity'),
          /** Which identity number `number` is. */
          idType: z.enum(['bvn', 'nin'], { error: 'must be bvn or nin' }),
          /** The BVN or NIN, 11 digits; stored only masked, hashed and sealed, never in clear. */
          number: identityNumberSchema,
          /**
           * The ladder: the steps to climb, in order, each once (`['match', 'otp', 'face']`). Default `['otp']`.
           * docs/flows.md, "The identity ladder".
           */
          steps: z
            .array(identityStepSchema)
            .min(1, { error: 'must name at least one step' })
            .max(4, { error: 'must name at most 4 steps' })
            .refine((steps) => new Set(steps).size === steps.length, { error: 'must not name a step twice' })
            .optional(),
          /** What the user claims, for a `match` step: sealed for the match, then forgotten. */
          claims: claimsSchemaFor(phoneFor(defaultCountry, 'any')).optional(),
        })
        .superRefine((input, context) => {
          const matches = input.steps?.includes('match') === true;
          if (matches && input.claims === undefined)
            context.addIssue({ code: 'custom', path: ['claims'], message: 'is required for a match step' });
          if (!matches && input.claims !== undefined)
            context.addIssue({ code: 'custom', path: ['claims'], message: 'is only taken with a match step' });
        }),
    ],
    { error: 'must be one of ussd, phone, identity, dial-in' },
  );
}

function sendSmsSchemaFor(defaultCountry: string | undefined) {
  return z.strictObject({
    /** The sender ID or number. */
    from: senderSchema.optional(),
    /** The recipient: E.164, or as typed (parsed into E.164); a number that receives SMS. */
    to: phoneFor(defaultCountry, 'sms'),
    /** The text, 1 to 1,600 characters. */
    message: smsMessageSchema,
  });
}

/** A WhatsApp send once read: the recipient, whichever name it came under, and the text. */
export interface WhatsAppSend {
  /** The recipient, in E.164. */
  readonly to: string;
  /** The text, 1 to 4,096 characters. */
  readonly message: string;
}

function sendWhatsAppSchemaFor(defaultCountry: string | undefined) {
  return z
    .strictObject({
      /** The recipient: E.164, or as typed (parsed into E.164); a number that can have WhatsApp. */
      to: phoneFor(defaultCountry, 'whatsapp').optional(),
      /** The recipient under its old name (before `to`, the name `sendSms` uses): deprecated, still taken. */
      phoneNumber: phoneFor(defaultCountry, 'whatsapp').optional(),
      /** The text, 1 to 4,096 characters. */
      message: whatsAppMessageSchema,
    })
    .transform(({ to, phoneNumber, message }, context): WhatsAppSend => {
      if (to !== undefined && phoneNumber !== undefined)
        context.addIssue({ code: 'custom', path: ['phoneNumber'], message: 'is the old name of to: give to only' });
      else if (to === undefined && phoneNumber === undefined)
        context.addIssue({ code: 'custom', path: ['to'], message: 'is required' });
      return { to: (to ?? phoneNumber)!, message };
    });
}

/** The engine's input schemas for one default country: numbers in national form are read as that country's. */
export interface InputSchemas {
  readonly start: ReturnType<typeof startSchemaFor>;
  /** The start schema's `phone` member, whose fields the phone start checked by hand reads (`phoneStartByHand`, below). */
  readonly phoneStart: ReturnType<typeof phoneStartSchemaFor>;
  readonly sendSms: ReturnType<typeof sendSmsSchemaFor>;
  readonly sendWhatsApp: ReturnType<typeof sendWhatsAppSchemaFor>;
}

const schemasByCountry = new Map<string, InputSchemas>();

/** The input schemas of an engine whose `defaultCountry` is `defaultCountry` (cached per country). */
export function inputSchemasFor(defaultCountry: string | undefined): InputSchemas {
  const key = defaultCountry ?? '';
  let schemas = schemasByCountry.get(key);
  if (schemas === undefined) {
    const phoneStart = phoneStartSchemaFor(defaultCountry);
    schemas = {
      start: startSchemaFor(defaultCountry, phoneStart),
      phoneStart,
      sendSms: sendSmsSchemaFor(defaultCountry),
      sendWhatsApp: sendWhatsAppSchemaFor(defaultCountry),
    };
    schemasByCountry.set(key, schemas);
  }
  return schemas;
}

/** Input of `verikit.start`, for an engine without a default country (numbers start with `+` or `00`). */
export const startInputSchema = inputSchemasFor(undefined).start;

/** What `verikit.start` takes. */
export type StartInput = z.input<typeof startInputSchema>;

/** A start input after parsing (defaults applied): what a flow definition receives. */
export type ParsedStartInput = z.output<typeof startInputSchema>;

/** A selfie: bytes, or base64 (as JSON carries it), JPEG or PNG, at most {@link maxSelfieBytes}; never echoed. */
const selfieSchema = z
  .union([z.instanceof(Uint8Array), z.string().max(Math.ceil(maxSelfieBytes / 3) * 4 + 4)], {
    error: 'must be the image bytes or their base64, at most 2 MiB',
  })
  .transform((value, context) => {
    const bytes = typeof value === 'string' ? Buffer.from(value, 'base64') : value;
    const jpeg = bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
    const png = bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47;
    if (bytes.byteLength > maxSelfieBytes) context.addIssue({ code: 'custom', message: 'must be at most 2 MiB' });
    else if (!jpeg && !png) context.addIssue({ code: 'custom', message: 'must be a JPEG or PNG image' });
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  });

/** Input of `verikit.send`: the events a user can send. */
export const userEventSchema = z.discriminatedUnion(
  'type',
  [
    z.strictObject({
      /** Submits the code the user received. */
      type: z.literal('submit-code'),
      /** The code as typed: checked, never stored. */
      code: codeSchema,
    }),
    z.strictObject({
      /** Sends a code again (phone, identity) once the cooldown has passed. */
      type: z.literal('resend'),
      /** Phone flows: the channel of the plan to send on this time (`voice` for "call me instead"). */
      channel: phoneChannelSchema.optional(),
    }),
    z.strictObject({
      /** Starts a new USSD session once the cooldown has passed. */
      type: z.literal('restart'),
    }),
    z.strictObject({
      /** Ends the flow; nothing can change it after. */
      type: z.literal('cancel'),
    }),
    z.strictObject({
      /** Identity ladder: the user says they answered the vendor's consent request; the engine asks the vendor. */
      type: z.literal('consent-given'),
    }),
    z.strictObject({
      /** Identity ladder: the selfie for the face step, passed to the vendor and never kept. */
      type: z.literal('submit-selfie'),
      /** JPEG or PNG bytes, or their base64; at most 2 MiB. */
      image: selfieSchema,
    }),
  ],
  { error: 'must be one of submit-code, resend, restart, cancel, consent-given, submit-selfie' },
);

/** What `verikit.send` takes. */
export type UserEvent = z.input<typeof userEventSchema>;

/** A user event after parsing: what a flow definition turns into its machine's event. */
export type ParsedUserEvent = z.output<typeof userEventSchema>;

/** Input of `verikit.sendSms`, for an engine without a default country. `from` falls back to the engine's `defaultSender`, then to the provider's. */
export const sendSmsInputSchema = inputSchemasFor(undefined).sendSms;

/** What `verikit.sendSms` takes. */
export type SendSmsInput = z.input<typeof sendSmsInputSchema>;

/** Input of `verikit.sendWhatsApp`, for an engine without a default country. */
export const sendWhatsAppInputSchema = inputSchemasFor(undefined).sendWhatsApp;

/** What `verikit.sendWhatsApp` takes: the recipient `to`, as `sendSms` names it, and the text. */
export type SendWhatsAppInput =
  | {
      /** The recipient: E.164, or as typed (parsed into E.164); a number that can have WhatsApp. */
      readonly to: string;
      /** The text, 1 to 4,096 characters. */
      readonly message: string;
    }
  | {
      /** @deprecated The old name of `to` (docs/migration.md): give `to`. */
      readonly phoneNumber: string;
      /** The text, 1 to 4,096 characters. */
      readonly message: string;
    };

/** Input of `verikit.receive`: an event a provider pushed, after its signature was checked. */
export const providerEventSchema = onFirstUse(() =>
  z.discriminatedUnion(
    'type',
    [
      z.strictObject({
        type: z.literal('ussd-verification'),
        phoneNumber: phoneFor(undefined, 'any'),
        status: z.enum(['success', 'failed'], { error: 'must be success or failed' }),
      }),
      z.strictObject({
        type: z.literal('delivery'),
        messageId: z.string({ error: 'must be a string' }).regex(/^[\x21-\x7e]{1,256}$/, {
          error: 'must be 1 to 256 visible ASCII characters',
        }),
        status: z.enum(['delivered', 'undelivered'], { error: 'must be delivered or undelivered' }),
        reason: z.string({ error: 'must be a string' }).min(1).max(200).optional(),
        at: z.number({ error: 'must be a number' }).int().nonnegative().optional(),
      }),
      z.strictObject({
        type: z.literal('dial-in'),
        phoneNumber: phoneFor(undefined, 'ussd'),
        reference: z.string({ error: 'must be a string' }).regex(/^[0-9]{1,16}$/, { error: 'must be 1 to 16 digits' }),
      }),
      z.strictObject({
        type: z.literal('inbound-message'),
        channel: z.enum(['sms', 'whatsapp'], { error: 'must be sms or whatsapp' }),
        from: phoneFor(undefined, 'any'),
        to: phoneFor(undefined, 'any'),
        text: z.string({ error: 'must be a string' }).max(1600, { error: 'must be at most 1600 characters' }),
      }),
    ],
    { error: 'must be ussd-verification, delivery, dial-in or inbound-message' },
  ),
);

/** The second argument of `verikit.start` and `verikit.send`: who the call is made for. */
export interface CallOptions {
  /**
   * The client the send guard counts this call against (an address, an account id): 1 to 512
   * characters, only ever stored as a keyed hash. Absent: the per-client limit does not apply.
   */
  client?: string | undefined;
  /**
   * A key naming this call, as Stripe's `Idempotency-Key`, for `start` and for `send`'s `resend` and `restart`. A
   * repeat with the same key (for a start, and the same `owner`) and the same parameters within
   * `policies.retentionMs` (a day by default) returns the same flow and sends nothing (`isReplayed(view)` is
   * true); the same key with other parameters is an `IdempotencyKeyReusedError` naming them (decision 1660).
   * 1 to 255 characters, only ever stored as a keyed hash.
   */
  idempotencyKey?: string | undefined;
  /**
   * `start` only: who the flow belongs to, as the application knows it (a session id, an account id,
   * a browser's owner token). A start for a number with a live flow of the same kind and the same
   * owner resumes that flow and sends nothing. 1 to 512 characters, only ever stored as a keyed hash.
   * Absent: every start is a new flow (unless `idempotencyKey` repeats).
   */
  owner?: string | undefined;
}

/** The call options, checked. */
export interface CheckedCallOptions {
  readonly client: string | undefined;
  readonly idempotencyKey: string | undefined;
  readonly owner: string | undefined;
}

const optionText = (max: number) =>
  z
    .string({ error: `must be a string of 1 to ${max} characters` })
    .min(1, { error: 'must not be empty' })
    .max(max, { error: `must be at most ${max} characters` })
    .optional();

const callOptionsSchema = onFirstUse(() =>
  z.object({ client: optionText(512), idempotencyKey: optionText(255), owner: optionText(512) }),
);
const knownFields = new Set(['client', 'idempotencyKey', 'owner']);

/** Checks the call options (an `InvalidInputError` naming the field). */
export function callOptionsOf(options: unknown): CheckedCallOptions {
  if (options === undefined) return { client: undefined, idempotencyKey: undefined, owner: undefined };
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidInputError([{ field: 'options', message: 'must be an object such as { client }' }]);
  }
  const unknown = Object.keys(options).filter((key) => !knownFields.has(key));
  if (unknown.length > 0) {
    throw new InvalidInputError([
      { field: 'options', message: `has unknown field(s): ${unknown.map((key) => key.slice(0, 40)).join(', ')}` },
    ]);
  }
  const { client, idempotencyKey, owner } = parseInput(callOptionsSchema(), options);
  return { client, idempotencyKey, owner };
}

/** A phone start's fields after its kind and number, in the order the schema's output has them. */
const optionalFields = ['channel', 'channels', 'locale', 'from', 'escalateAfterMs'] as const;
/** Every field a phone start may have. */
const phoneFields: ReadonlySet<string> = new Set(['kind', 'phoneNumber', ...optionalFields]);

/** A phone start as the schema returns it. */
type ParsedPhoneStart = Extract<ParsedStartInput, { kind: 'phone' }>;

/**
 * The phone start checked by hand: a start's own path without zod's walk over the union (its schema stays the one
 * definition of what a start is; docs/decisions/1960-a-phone-start-checked-by-hand-then-by-zod.md). Given a plain
 * object (`{}` or an object literal) with `kind: 'phone'` and only a phone start's fields, it reads the number once
 * (for any use, then for each channel of the plan, as the schema does), checks each other field given with that
 * field's own schema, and returns the object the schema would return: the same fields, values and order. Any input
 * it does not take, or that fails a check, is undefined: the caller then parses it with the schema, so every
 * refusal, message and issue is zod's. `phone-start-by-hand.test.ts` holds the two to the same outputs.
 */
export function phoneStartByHand(
  defaultCountry: string | undefined,
  schema: InputSchemas['phoneStart'],
): (input: unknown) => ParsedPhoneStart | undefined {
  const { shape } = schema;
  const anyUse = { defaultCountry, use: 'any' } as const;
  return (input) => {
    if (typeof input !== 'object' || input === null || Object.getPrototypeOf(input) !== Object.prototype)
      return undefined;
    const given = input as Record<string, unknown>;
    if (given.kind !== 'phone') return undefined;
    for (const key in given) if (!phoneFields.has(key)) return undefined;
    // One reader for this start: the number is parsed once for all its readings, and held by nothing after.
    const read = phoneNumberReader();
    const number = read(given.phoneNumber, anyUse);
    if (!number.ok) return undefined;
    const parsed: Record<string, unknown> = { kind: 'phone', phoneNumber: number.e164 };
    for (const field of optionalFields) {
      if (!Object.hasOwn(given, field)) continue;
      const value = given[field];
      if (value === undefined) {
        parsed[field] = undefined;
        continue;
      }
      const checked = shape[field].safeParse(value);
      if (!checked.success) return undefined;
      parsed[field] = checked.data;
    }
    const start = parsed as ParsedPhoneStart;
    return planNumberProblem(start, read) === undefined ? start : undefined;
  };
}
