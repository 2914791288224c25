import type { AnyMachineSnapshot, AnyStateMachine } from 'xstate';
import { z } from 'zod';
import { createFlowMachines, machineFor, type FlowMachines } from '../flows/machines.js';
import { defaultPolicies, type FlowPolicies } from '../flows/policies.js';
import { createPureTransitions, type PureTransitions } from '../flows/pure-transition.js';
import { isTickDue, resendBlockedReason, type EffectRequest, type FlowContextBase, type FlowError, type FlowKind } from '../flows/shared.js';
import { CapabilityError } from '@verikit/provider';
import { ConflictError } from '../errors/conflict-error.js';
import { EventNotAllowedError } from '../errors/event-not-allowed-error.js';
import { FlowNotFoundError } from '../errors/flow-not-found-error.js';
import { InvalidInputError } from '@verikit/provider';
import { ProviderProtocolError } from '@verikit/provider';
import { ProviderUnavailableError } from '@verikit/provider';
import { RateLimitedError } from '@verikit/provider';
import { RecordSchemaError } from '../errors/record-schema-error.js';
import { StoreError } from '../errors/store-error.js';
import { VerikitError } from '@verikit/provider';
import { silentLogger, type Logger } from '@verikit/provider';
import { safeProviderMessage } from '@verikit/provider';
import type { MessageSendResultV1, ProviderEventV1, ProviderV1 } from '@verikit/provider';
import { flowIdSchema, parseInput, senderSchema } from '@verikit/provider';
import { recordSchemaVersion, type FlowRecord, type FlowStore } from '../store/flow-store.js';
import { KeyvFlowStore } from '../store/keyv-flow-store.js';
import { safeStoreCause } from '../store/safe-store-cause.js';
import { MemoryChangeBus, type FlowChangeBus, type FlowListener } from './change-bus.js';
import {
  providerEventSchema,
  sendSmsInputSchema,
  sendWhatsAppInputSchema,
  startInputSchema,
  userEventSchema,
  type SendSmsInput,
  type SendWhatsAppInput,
  type StartInput,
  type UserEvent,
} from './inputs.js';
import { generateFlowId, generateOtp, mask, SecretBox } from './secrets.js';
import { toView, type FlowView } from './view.js';

/** Where the engine reads the time. Inject one in tests to move time by hand. */
export interface Clock {
  now(): number;
}

/** Options of {@link createVerikit}. */
export interface VerikitOptions {
  /** The provider that sends codes and messages. */
  provider: ProviderV1;
  /** Where flows are kept. Default: an in-memory Keyv (one process). */
  store?: FlowStore;
  /**
   * The key for OTP hashes and sealed identity numbers: at least 32 characters, kept out of source
   * control. Every engine sharing a store must use the same secret.
   */
  secret: string;
  /** Default: the system clock. */
  clock?: Clock;
  /** Limits and timings; each field defaults to {@link defaultPolicies}. */
  policies?: Partial<FlowPolicies>;
  /** Carries committed changes to subscribers. Default: in-process. */
  changeBus?: FlowChangeBus;
  /** Default: silent. verikit never logs secrets, codes or full identity numbers. */
  logger?: Logger;
  /** The sender for `sendSms` when a call names none. Absent: the provider's default sender applies. */
  defaultSender?: string;
  /** Patterns for identity numbers, checked after the 11-digit default. Default: none beyond 11 digits. */
  identityNumberPatterns?: Partial<Record<'bvn' | 'nin', RegExp>>;
}

/** What `receive` did with a provider event. */
export interface ReceiveResult {
  readonly outcome: 'applied' | 'no-active-flow' | 'not-applicable';
  readonly flowId?: string;
  readonly view?: FlowView;
}

/** The verikit engine: starts flows, takes user events, runs provider calls, and sends messages. */
export interface Verikit {
  /** Starts a flow and makes its first provider call; resolves with the view once that call settled. */
  start(input: StartInput): Promise<FlowView>;
  /** Applies a user event (`submit-code`, `resend`, `restart`, `cancel`) and any provider call it starts. */
  send(flowId: string, event: UserEvent): Promise<FlowView>;
  /** Reads a flow as of now: a flow read after its expiry is expired whether or not a timer ran. */
  get(flowId: string): Promise<FlowView>;
  /** Same as `send(flowId, { type: 'cancel' })`. */
  cancel(flowId: string): Promise<FlowView>;
  /** Calls `listener` with every committed view of the flow; returns the unsubscribe function. */
  subscribe(flowId: string, listener: FlowListener): () => void;
  /**
   * Resolves once this instance's subscriptions to the flow receive changes from every instance
   * (immediately in one process; after the Redis SUBSCRIBE is confirmed with the Redis bus).
   */
  subscribed(flowId: string): Promise<void>;
  /** Applies a verified provider event (the USSD result) to the flow it concerns. */
  receive(event: ProviderEventV1): Promise<ReceiveResult>;
  sendSms(input: SendSmsInput): Promise<MessageSendResultV1 & { provider: string }>;
  sendWhatsApp(input: SendWhatsAppInput): Promise<MessageSendResultV1 & { provider: string }>;
  /** The provider the engine was created with (its `webhooks.parse` reads the provider's webhooks). */
  readonly provider: ProviderV1;
  /** The engine's clock: what `now` means for every flow, webhook timestamps included. */
  readonly clock: Clock;
  /** The engine's logger. */
  readonly logger: Logger;
  /** The policies in force. */
  readonly policies: Readonly<FlowPolicies>;
  readonly store: FlowStore;
}

const optionsSchema = z.object({
  provider: z.custom<ProviderV1>((value) => typeof value === 'object' && value !== null && (value as ProviderV1).specificationVersion === 'v1', {
    error: 'must be a provider implementing specificationVersion v1',
  }),
  secret: z.string({ error: 'is required' }).min(32, { error: 'must be at least 32 characters' }),
  defaultSender: senderSchema.optional(),
  identityNumberPatterns: z
    .strictObject({
      bvn: z.instanceof(RegExp, { error: 'must be a RegExp' }).optional(),
      nin: z.instanceof(RegExp, { error: 'must be a RegExp' }).optional(),
    })
    .optional(),
  webhooks: z
    .undefined({
      error: 'is configured on the HTTP layer: createWebhookHandler({ verikit, secret }) or createFlowHandler({ verikit, webhooks: { secret } }) from @verikit/http',
    })
    .optional(),
  clock: z
    .custom<Clock>((value) => typeof value === 'object' && value !== null && typeof (value as Clock).now === 'function', {
      error: 'must be an object with a now() function',
    })
    .optional(),
  policies: z
    .strictObject({
      codeTtlMs: z.number().int().min(1000).optional(),
      maxAttempts: z.number().int().min(1).max(100).optional(),
      resendCooldownMs: z.number().int().min(0).optional(),
      resendCooldownGrowth: z.number().min(1).max(10).optional(),
      maxSendsPerFlow: z.number().int().min(1).max(100).optional(),
      maxSendsPerHour: z.number().int().min(1).optional(),
      effectTimeoutMs: z.number().int().min(100).optional(),
      otpLength: z.number().int().min(4).max(10).optional(),
      retentionMs: z.number().int().min(0).optional(),
    })
    .optional(),
});

const sendEffectKinds = new Set(['ussd.initiate', 'phone.send', 'identity.send-otp']);
const maxCommitAttempts = 25;

interface Loaded {
  record: FlowRecord;
  machine: AnyStateMachine;
  snapshot: AnyMachineSnapshot;
}

/** Secrets that live only in memory, for the provider call of one user action. */
interface EffectMemory {
  otp?: string;
}

type InternalEvent = Record<string, unknown> & { type: string; now: number };

/**
 * Creates the engine.
 *
 * @example
 * const verikit = createVerikit({ provider: createTestProviderV1(), secret: process.env.VERIKIT_SECRET! });
 * const flow = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345678' });
 * const done = await verikit.send(flow.id, { type: 'submit-code', code: '123456' });
 */
export function createVerikit(options: VerikitOptions): Verikit {
  parseInput(optionsSchema, options);
  const { provider, secret } = options;
  const policies: Readonly<FlowPolicies> = Object.freeze({ ...defaultPolicies, ...options.policies });
  // Copies without the global and sticky flags, whose test() would remember where it stopped.
  const identityNumberPatterns: Partial<Record<'bvn' | 'nin', RegExp>> = {};
  for (const idType of ['bvn', 'nin'] as const) {
    const pattern = options.identityNumberPatterns?.[idType];
    if (pattern) identityNumberPatterns[idType] = new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ''));
  }
  const store = options.store ?? new KeyvFlowStore();
  const clock = options.clock ?? { now: () => Date.now() };
  const logger = options.logger ?? silentLogger;
  const bus: FlowChangeBus = options.changeBus ?? new MemoryChangeBus((error) => logger.error('verikit.listener.failed', { error: errorCode(error) }));
  const machines: FlowMachines = createFlowMachines(policies);
  const pure = new Map<AnyStateMachine, PureTransitions>(
    Object.values(machines).map((machine: AnyStateMachine) => [machine, createPureTransitions(machine)]),
  );
  const transition = (machine: AnyStateMachine, snapshot: AnyMachineSnapshot, event: unknown) => pure.get(machine)!.next(snapshot, event);
  const secrets = new SecretBox(secret);
  const localLocks = new Map<string, Promise<Error | undefined>>();

  function restore(record: FlowRecord): Loaded {
    if (record.schemaVersion !== recordSchemaVersion) {
      throw new RecordSchemaError(`flow record has schema version ${String(record.schemaVersion)}; this release reads ${recordSchemaVersion}`);
    }
    if (!Object.hasOwn(machines, record.kind)) throw new RecordSchemaError('flow record has an unknown kind');
    const machine = machineFor(machines, record.kind);
    try {
      const snapshot = machine.resolveState({ value: record.value, context: record.context });
      return { record, machine, snapshot };
    } catch (error) {
      throw new RecordSchemaError('flow record does not match the flow machine', { cause: error });
    }
  }

  async function load(flowId: string): Promise<Loaded> {
    const record = await store.getFlow(flowId);
    if (record === undefined) throw new FlowNotFoundError(flowId);
    return restore(record);
  }

  function ticked(loaded: Loaded, now: number): AnyMachineSnapshot {
    const { snapshot, machine } = loaded;
    if (snapshot.status === 'done' || !isTickDue(snapshot.context as FlowContextBase, now)) return snapshot;
    return transition(machine, snapshot, { type: 'tick', now } as never)[0];
  }

  function ttlFor(snapshot: AnyMachineSnapshot, now: number): number {
    // Keyv reads a TTL of 0 as "keep forever": the shortest TTL is 1 ms.
    if (snapshot.status === 'done') return Math.max(1, policies.retentionMs);
    const context = snapshot.context as FlowContextBase;
    const until = Math.max(now, context.expiresAt ?? now, context.effect?.deadline ?? now, context.resendAvailableAt ?? now);
    return Math.max(1, until - now + policies.retentionMs);
  }

  function viewOf(snapshot: AnyMachineSnapshot, record: FlowRecord, now: number): FlowView {
    return toView(snapshot, record, now);
  }

  /**
   * Serializes this process's commits to one flow; other processes are kept out by compare-and-set.
   * When the store failed the work ahead (a `StoreError`), the work queued behind it fails at once
   * with a StoreError of its own instead of trying in turn: with a store that hangs, the k-th caller
   * would otherwise wait k times the store's timeout.
   */
  async function serialized<T>(flowId: string, work: () => Promise<T>): Promise<T> {
    const previous = localLocks.get(flowId);
    const current = (previous ?? Promise.resolve(undefined)).then((storeFailure) => {
      if (storeFailure !== undefined) {
        throw new StoreError('the flow store failed the call queued ahead of this one on the same flow', { cause: storeFailure });
      }
      return work();
    });
    const settled: Promise<Error | undefined> = current.then(
      () => undefined,
      (error: unknown) => (StoreError.isInstance(error) ? safeStoreCause(error) : undefined),
    );
    localLocks.set(flowId, settled);
    try {
      return await current;
    } finally {
      if (localLocks.get(flowId) === settled) localLocks.delete(flowId);
    }
  }

  interface Decision {
    event: InternalEvent;
    /** Called when the event changes nothing: throw to refuse, return to accept silently. */
    onRefused: (loaded: Loaded, snapshot: AnyMachineSnapshot, now: number) => void;
    /** Key for the per-number send limit, when the event may start a send. */
    limitKey?: string;
  }

  /**
   * Load, compute, compare-and-set; retried on conflict. Returns the committed view and the effects to run.
   *
   * `committedHere` is the record this process committed last for the flow (when an effect's result
   * comes back, the one committed before the call): the first try starts from it instead of reading
   * the store. Nothing is lost if another instance changed the flow since: the compare-and-set then
   * fails, and the next try reads the store. An event the hint refuses is tried again on a fresh read.
   */
  async function commit(
    flowId: string,
    decide: (loaded: Loaded, now: number) => Decision,
    committedHere?: Loaded,
  ): Promise<{ view: FlowView; effects: EffectRequest[]; loaded: Loaded; changed: boolean }> {
    return serialized(flowId, async () => {
      let limitTaken = false;
      let hint = committedHere;
      for (let attempt = 0; attempt < maxCommitAttempts; attempt += 1) {
        const fromHint = hint !== undefined;
        const loaded = hint ?? (await load(flowId));
        hint = undefined;
        const now = clock.now();
        const current = ticked(loaded, now);
        const decision = decide(loaded, now);
        // A flow in a final state takes no event (XState would still apply root-level transitions).
        const [next, actions] = current.status === 'done' ? [current, []] : transition(loaded.machine, current, decision.event as never);
        if (next === current && fromHint) continue;
        if (next === current) {
          decision.onRefused(loaded, current, now);
          return { view: viewOf(current, loaded.record, now), effects: [], loaded, changed: false };
        }
        const effects = effectsOf(actions);
        if (!limitTaken && decision.limitKey !== undefined && effects.some((effect) => sendEffectKinds.has(effect.kind))) {
          await takeSendLimit(decision.limitKey, now);
          limitTaken = true;
        }
        const record: FlowRecord = {
          ...loaded.record,
          version: loaded.record.version + 1,
          value: next.value as string,
          context: next.context as Record<string, unknown>,
          updatedAt: now,
        };
        const ttl = ttlFor(next, now);
        if (await store.compareAndSetFlow(record, loaded.record.version, ttl)) {
          // A USSD flow that starts waiting for the dial (again) becomes the number's active flow, the one
          // the service's result is routed to, for as long as its record lives. Only then: until the user
          // has a code to dial, a result can only be for an earlier flow.
          if (record.kind === 'ussd' && next.value === 'awaiting-dial' && current.value !== 'awaiting-dial') {
            await store.setRoute(`ussd:${String(record.context.phoneNumber)}`, flowId, ttl);
          }
          const view = viewOf(next, record, now);
          logger.debug('verikit.flow.changed', { flowId, kind: record.kind, status: view.status, version: record.version });
          await publish(view);
          return { view, effects, loaded: { record, machine: loaded.machine, snapshot: next }, changed: true };
        }
        // A stale hint is no contention: read again at once.
        if (!fromHint) await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 * (attempt + 1)));
      }
      throw new ConflictError();
    });
  }

  async function publish(view: FlowView): Promise<void> {
    try {
      await bus.publish(view);
    } catch (error) {
      logger.warn('verikit.publish.failed', { flowId: view.id, error: errorCode(error) });
    }
  }

  async function takeSendLimit(key: string, now: number): Promise<void> {
    const result = await store.consume(`sends:${key}`, policies.maxSendsPerHour, 60 * 60_000, now);
    if (!result.allowed) {
      throw new RateLimitedError(`the limit of ${policies.maxSendsPerHour} sends per hour for this recipient is reached`, result.resetAt);
    }
  }

  function limitKeyOf(kind: FlowKind, context: Record<string, unknown>): string {
    return kind === 'identity' ? `${String(context.idType)}:${String(context.numberHash)}` : String(context.phoneNumber);
  }

  function refuse(eventType: string) {
    return (loaded: Loaded, snapshot: AnyMachineSnapshot, now: number): never => {
      const view = viewOf(snapshot, loaded.record, now);
      let reason: string | undefined;
      if ((eventType === 'resend' || eventType === 'restart') && !view.done) {
        reason = resendBlockedReason(snapshot.context as FlowContextBase, now, policies);
      }
      throw new EventNotAllowedError(eventType, view.status, view.allowed, reason);
    };
  }

  const acceptSilently = (): void => {};

  /** Runs the committed effects one after another, feeding each result back; returns the last view. */
  async function runEffects(
    flowId: string,
    kind: FlowKind,
    effects: EffectRequest[],
    view: FlowView,
    memory: EffectMemory,
    committedHere: Loaded,
  ): Promise<FlowView> {
    let latest = view;
    let hint: Loaded | undefined = committedHere;
    for (const effect of effects) {
      const outcome = await callProvider(flowId, effect, memory, hint);
      try {
        if (outcome.ok === 'unknown') {
          latest = await verikit.get(flowId);
          hint = undefined;
        } else {
          const event: Omit<InternalEvent, 'now'> = outcome.ok
            ? { type: 'effect-succeeded', effectId: effect.id, result: outcome.result }
            : { type: 'effect-failed', effectId: effect.id, error: outcome.error };
          const committed = await commit(flowId, (_loaded, now) => ({ event: { ...event, now } as InternalEvent, onRefused: acceptSilently }), hint);
          latest = committed.view;
          hint = committed.changed ? committed.loaded : undefined;
        }
      } catch (error) {
        if (!FlowNotFoundError.isInstance(error)) throw error;
      }
      logger.debug('verikit.effect.settled', {
        flowId,
        kind,
        effect: effect.kind,
        outcome: outcome.ok === 'unknown' ? 'unknown' : outcome.ok ? 'ok' : outcome.error.code,
      });
    }
    return latest;
  }

  type Outcome = { ok: true; result: Record<string, unknown> } | { ok: false; error: FlowError } | { ok: 'unknown' };

  /**
   * Makes the provider call with a deadline. Past the deadline the call is aborted, the flow is moved
   * on as if its deadline had passed (whatever the injected clock says), and a late success is still
   * applied if it comes.
   */
  async function callProvider(flowId: string, effect: EffectRequest, memory: EffectMemory, committed: Loaded | undefined): Promise<Outcome> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = Symbol('timed out');
    const deadline = new Promise<typeof timedOut>((resolve) => {
      timer = setTimeout(() => {
        controller.abort(new ProviderUnavailableError('the provider did not answer before the deadline'));
        resolve(timedOut);
      }, policies.effectTimeoutMs);
    });
    const context = { signal: controller.signal, idempotencyKey: effect.id, logger };
    const call = invoke(flowId, effect, memory, context, committed);
    try {
      const result = await Promise.race([call, deadline]);
      if (result !== timedOut) return { ok: true, result };
    } catch (error) {
      if (!controller.signal.aborted) return { ok: false, error: toFlowError(error) };
    } finally {
      clearTimeout(timer);
    }
    call.then(
      (result) => applyQuietly(flowId, (now) => ({ type: 'effect-succeeded', now, effectId: effect.id, result })),
      () => undefined,
    );
    await applyQuietly(flowId, (now, context) => ({ type: 'tick', now: context.effect?.id === effect.id ? Math.max(now, context.effect.deadline) : now }));
    return { ok: 'unknown' };
  }

  /** Applies an internal event; a refusal (the flow moved on) or a vanished flow is not an error here. */
  async function applyQuietly(flowId: string, makeEvent: (now: number, context: FlowContextBase) => InternalEvent): Promise<FlowView | undefined> {
    try {
      const committed = await commit(flowId, (loaded, now) => ({ event: makeEvent(now, loaded.snapshot.context as FlowContextBase), onRefused: acceptSilently }));
      return committed.view;
    } catch (error) {
      logger.warn('verikit.effect.apply-failed', { flowId, error: errorCode(error) });
      return undefined;
    }
  }

  async function invoke(
    flowId: string,
    effect: EffectRequest,
    memory: EffectMemory,
    context: { signal: AbortSignal; idempotencyKey: string; logger: Logger },
    committed: Loaded | undefined,
  ): Promise<Record<string, unknown>> {
    switch (effect.kind) {
      case 'ussd.initiate': {
        const result = await provider.ussd!.initiate({ phoneNumber: effect.input.phoneNumber! }, context);
        if (typeof result?.otp !== 'string' || typeof result.ussdCode !== 'string' || !result.otp || !result.ussdCode) {
          throw new ProviderProtocolError('the provider returned no otp or ussdCode', { field: 'otp' });
        }
        return { otp: result.otp, ussdCode: result.ussdCode, ...(result.reference ? { reference: result.reference } : {}) };
      }
      case 'phone.send': {
        const input = effect.input;
        const result = await provider.phone!.send(
          { phoneNumber: input.phoneNumber!, channel: input.channel as 'sms' | 'voice', ...(input.from ? { from: input.from } : {}) },
          context,
        );
        if (typeof result?.requestId !== 'string' || result.requestId === '') {
          throw new ProviderProtocolError('the provider returned no requestId', { field: 'requestId' });
        }
        return { requestId: result.requestId };
      }
      case 'phone.check': {
        const result = await provider.phone!.check({ requestId: effect.input.requestId!, code: effect.input.code! }, context);
        if (typeof result?.valid !== 'boolean') throw new ProviderProtocolError('the provider returned no validity', { field: 'valid' });
        return { valid: result.valid };
      }
      case 'identity.send-otp': {
        if (memory.otp === undefined) throw new ProviderProtocolError('no OTP in memory for this send');
        // The record committed with this effect holds the sealed number; read the store only without it.
        const loaded = committed ?? (await load(flowId));
        const sealed = (loaded.snapshot.context as { numberSealed?: string }).numberSealed;
        const idType = effect.input.idType as 'bvn' | 'nin';
        if (sealed === undefined) throw new RecordSchemaError('the identity number is no longer held for this flow');
        await provider.identity!.sendOtp({ idType, number: secrets.open(`number:${flowId}`, sealed), otp: memory.otp }, context);
        return {};
      }
    }
  }

  function requireCapability(input: z.output<typeof startInputSchema>): void {
    if (input.kind === 'ussd' && !provider.ussd) throw new CapabilityError('ussd', provider.name);
    if (input.kind === 'phone') {
      if (!provider.phone) throw new CapabilityError('phone', provider.name);
      if (!provider.phone.channels.includes(input.channel)) throw new CapabilityError(`the ${input.channel} channel`, provider.name, { field: 'channel' });
    }
    if (input.kind === 'identity') {
      if (!provider.identity) throw new CapabilityError('identity', provider.name);
      if (!provider.identity.types.includes(input.idType)) throw new CapabilityError(input.idType, provider.name, { field: 'idType' });
    }
  }

  function parseFlowId(flowId: unknown): string {
    return parseInput(flowIdSchema, flowId, 'flowId');
  }

  const verikit: Verikit = {
    policies,
    store,
    provider,
    clock,
    logger,

    async start(rawInput) {
      const input = parseInput(startInputSchema, rawInput);
      if (input.kind === 'identity') {
        const pattern = identityNumberPatterns[input.idType];
        if (pattern && !pattern.test(input.number)) throw new InvalidInputError([{ field: 'number', message: `is not a valid ${input.idType.toUpperCase()}` }]);
      }
      requireCapability(input);
      const id = generateFlowId();
      const now = clock.now();
      const memory: EffectMemory = {};
      let machineInput: Record<string, unknown>;
      let limitKey: string;
      if (input.kind === 'identity') {
        memory.otp = generateOtp(policies.otpLength);
        const numberHash = secrets.hash(`number:${input.idType}`, input.number);
        machineInput = {
          flowId: id,
          now,
          idType: input.idType,
          numberMasked: mask(input.number),
          numberHash,
          numberSealed: secrets.seal(`number:${id}`, input.number),
          otpHash: secrets.hash(`otp:${id}`, memory.otp),
        };
        limitKey = `${input.idType}:${numberHash}`;
      } else {
        machineInput = { flowId: id, now, ...input };
        delete machineInput.kind;
        limitKey = input.phoneNumber;
      }
      await takeSendLimit(limitKey, now);
      const machine = machineFor(machines, input.kind);
      const [snapshot, actions] = pure.get(machine)!.initial(machineInput);
      const record: FlowRecord = {
        schemaVersion: recordSchemaVersion,
        id,
        kind: input.kind,
        version: 1,
        value: snapshot.value as string,
        context: snapshot.context as Record<string, unknown>,
        createdAt: now,
        updatedAt: now,
      };
      if (!(await store.compareAndSetFlow(record, 0, ttlFor(snapshot, now)))) throw new ConflictError('a flow with this id exists already');
      logger.info('verikit.flow.started', { flowId: id, kind: input.kind });
      const view = viewOf(snapshot, record, now);
      await publish(view);
      const effects = effectsOf(actions);
      return runEffects(id, input.kind, effects, view, memory, { record, machine, snapshot });
    },

    async send(rawFlowId, rawEvent) {
      const flowId = parseFlowId(rawFlowId);
      const event = parseInput(userEventSchema, rawEvent, 'event');
      const memory: EffectMemory = {};
      const committed = await commit(flowId, (loaded, now): Decision => {
        const kind = loaded.record.kind;
        const internal: InternalEvent = { type: event.type, now };
        if (event.type === 'submit-code') {
          if (kind === 'identity') internal.codeHash = secrets.hash(`otp:${flowId}`, event.code);
          else internal.code = event.code;
        }
        if (event.type === 'resend' && kind === 'identity') {
          memory.otp ??= generateOtp(policies.otpLength);
          internal.otpHash = secrets.hash(`otp:${flowId}`, memory.otp);
        }
        return { event: internal, onRefused: refuse(event.type), limitKey: limitKeyOf(kind, loaded.record.context) };
      });
      return runEffects(flowId, committed.loaded.record.kind, committed.effects, committed.view, memory, committed.loaded);
    },

    async get(rawFlowId) {
      const flowId = parseFlowId(rawFlowId);
      const loaded = await load(flowId);
      const now = clock.now();
      return viewOf(ticked(loaded, now), loaded.record, now);
    },

    cancel(flowId) {
      return verikit.send(flowId, { type: 'cancel' });
    },

    subscribe(rawFlowId, listener) {
      const flowId = parseFlowId(rawFlowId);
      if (typeof listener !== 'function') throw new InvalidInputError([{ field: 'listener', message: 'must be a function' }]);
      return bus.subscribe(flowId, listener);
    },

    async subscribed(rawFlowId) {
      const flowId = parseFlowId(rawFlowId);
      try {
        await bus.subscribed?.(flowId);
      } catch (error) {
        if (VerikitError.isInstance(error)) throw error;
        throw new StoreError('live updates are unavailable: the change bus could not subscribe', { cause: safeStoreCause(error) });
      }
    },

    async receive(rawEvent) {
      const event = parseInput(providerEventSchema, rawEvent, 'event');
      const flowId = await store.getRoute(`ussd:${event.phoneNumber}`);
      if (flowId === undefined) return { outcome: 'no-active-flow' };
      try {
        const committed = await commit(flowId, (_loaded, now) => ({
          event: { type: 'ussd-result', now, status: event.status },
          onRefused: acceptSilently,
        }));
        if (!committed.changed) return { outcome: 'no-active-flow', flowId };
        return { outcome: 'applied', flowId, view: committed.view };
      } catch (error) {
        if (FlowNotFoundError.isInstance(error)) return { outcome: 'no-active-flow' };
        throw error;
      }
    },

    async sendSms(rawInput) {
      const input = parseInput(sendSmsInputSchema, rawInput);
      if (!provider.sms) throw new CapabilityError('sms', provider.name);
      const from = input.from ?? options.defaultSender;
      const result = await provider.sms.send({ ...(from === undefined ? {} : { from }), to: input.to, message: input.message }, messageContext());
      return { provider: provider.name, ...(result?.messageId ? { messageId: result.messageId } : {}) };
    },

    async sendWhatsApp(rawInput) {
      const input = parseInput(sendWhatsAppInputSchema, rawInput);
      if (!provider.whatsapp) throw new CapabilityError('whatsapp', provider.name);
      const result = await provider.whatsapp.send(input, messageContext());
      return { provider: provider.name, ...(result?.messageId ? { messageId: result.messageId } : {}) };
    },
  };

  function messageContext() {
    return { signal: AbortSignal.timeout(policies.effectTimeoutMs), idempotencyKey: `message:${generateFlowId()}`, logger };
  }

  return verikit;
}

/**
 * A provider error as a flow shows (and stores) it: our typed errors keep their code, and their message made
 * safe (digit runs masked, cut to 200 characters), since a provider's message may echo a BVN/NIN or a code;
 * anything else is generic.
 */
function toFlowError(error: unknown): FlowError {
  if (VerikitError.isInstance(error)) return { code: error.code, message: safeProviderMessage(error.message) ?? 'the provider call failed' };
  return { code: 'provider_error', message: 'the provider call failed' };
}

function errorCode(error: unknown): string {
  return VerikitError.isInstance(error) ? error.code : 'unknown';
}

function effectsOf(actions: readonly unknown[]): EffectRequest[] {
  return (actions as Array<{ type: string; params?: unknown }>).filter((action) => action.type === 'runEffect').map((action) => action.params as EffectRequest);
}
