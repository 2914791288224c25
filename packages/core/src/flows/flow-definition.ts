import type { AnyMachineSnapshot, AnyStateMachine } from 'xstate';
import type {
  IdentityType,
  Logger,
  PhoneChannel,
  ProviderCallContextV1,
  ProviderEventV1,
  ProviderV1,
} from '@verikit/provider';
import type { ParsedStartInput, ParsedUserEvent } from '../inputs/inputs.js';
import type { SecretBox } from '../secrets/secrets.js';
import type { FlowPolicies } from './policies.js';
import type { ReviewNumbers } from './review-numbers.js';
import type { EffectKind, EffectRequest, FlowKind } from './flow-context.js';

/** An event the engine applies to a machine: every one carries `now` from the engine's clock. */
export type InternalEvent = Record<string, unknown> & { type: string; now: number };

/** Secrets that live only in memory, for the provider calls of one user action (the BVN/NIN OTP). */
export interface EffectMemory {
  otp?: string;
  /** The selfie of an identity ladder's face step: passed to the provider, never stored. */
  image?: Uint8Array;
}

/** What a flow definition may use besides its input: the engine's configuration and its keys. */
export interface FlowEnvironment {
  readonly provider: ProviderV1;
  readonly policies: Readonly<FlowPolicies>;
  readonly secrets: SecretBox;
  /** Patterns an identity number must also match (copied without the global and sticky flags). */
  readonly identityNumberPatterns: Readonly<Partial<Record<IdentityType, RegExp>>>;
  /** Numbers whose phone code is fixed and never sent; undefined (the default) when the app lists none. */
  readonly reviewNumbers: ReviewNumbers | undefined;
}

/** One provider call an effect makes, with what it may read. */
interface EffectCall {
  readonly flowId: string;
  readonly input: EffectRequest['input'];
  readonly context: ProviderCallContextV1;
  readonly memory: EffectMemory;
  readonly env: FlowEnvironment;
  /** The context committed with this effect; the store is read only when this process holds none. */
  committedContext(): Promise<Readonly<Record<string, unknown>>>;
}

/** How the engine runs one kind of effect. */
export interface EffectDefinition {
  /** A send reaches the user's phone: committing it takes a unit of the recipient's hourly send limit. */
  readonly send: boolean;
  /** Makes the provider call and checks its result; throws a typed error when the provider broke its contract. */
  run(call: EffectCall): Promise<Record<string, unknown>>;
}

/** How a provider event finds its flow and what it becomes there. */
interface ProviderEventRoute {
  readonly type: ProviderEventV1['type'];
  /**
   * The route keys to read, in order, to find the flow the event concerns: the key
   * {@link FlowDefinition.routes} writes first, then any older form still read during an upgrade.
   */
  routeKeys(event: ProviderEventV1, env: FlowEnvironment): readonly string[];
  toEvent(event: ProviderEventV1, now: number, env: FlowEnvironment): InternalEvent;
}

/**
 * Everything the engine needs to know about one kind of flow, so that the engine itself never asks
 * which kind it runs: the machine, the capability it needs, how its inputs and user events become
 * machine input and events (secrets hashed or sealed on the way), which provider call each of its
 * effects makes, and which secondary keys it keeps. A definition performs no I/O of its own except
 * through `effects`, which the engine calls only after the effect was committed.
 */
export interface FlowDefinition<Input extends ParsedStartInput = ParsedStartInput> {
  readonly kind: FlowKind;
  createMachine(policies: FlowPolicies): AnyStateMachine;
  /** The user events the flow knows, probed for the view's `allowed`. */
  readonly userEvents: readonly ParsedUserEvent['type'][];
  /** Refuses a start the configuration or the provider cannot serve (`InvalidInputError`, `CapabilityError`), before anything is written. */
  check(input: Input, env: FlowEnvironment): void;
  /** The machine's input. Secrets the first effect needs go to `memory`; only their hashes or sealed forms to the input. */
  machineInput(
    input: Input,
    start: { flowId: string; now: number; memory: EffectMemory },
    env: FlowEnvironment,
  ): Record<string, unknown>;
  /**
   * Asks the provider what it knows of the recipient before the first send, and returns the machine input to start
   * with (a phone plan without the channels the provider says cannot reach the number: `phone.reach`). Called once
   * per new flow, after the live-flow check and before anything is written or counted; `ask` makes the provider call
   * under the engine's deadline for provider calls. A failed lookup leaves the input as it was.
   */
  consultProvider?(
    machineInput: Record<string, unknown>,
    env: FlowEnvironment,
    lookup: {
      readonly ask: <T>(call: (context: ProviderCallContextV1) => Promise<T>) => Promise<T>;
      readonly logger: Logger;
    },
  ): Promise<Record<string, unknown>>;
  /**
   * A state other than the machine's initial one that a new flow starts in, for this input (a phone plan's inbound
   * step, which sends nothing): the engine resolves the snapshot there with the context the machine made, and runs no
   * entry action. Undefined: the machine's initial state.
   */
  initialState?(machineInput: Readonly<Record<string, unknown>>): string | undefined;
  /**
   * The recipient's key for the hourly send limit, read from the machine input or the context (both
   * hold it). A number appears in it only as a keyed hash (`env.secrets`), never in clear.
   */
  sendLimitKey(context: Readonly<Record<string, unknown>>, env: FlowEnvironment): string;
  /**
   * What makes two starts the same start, for the idempotency key and the owner's live flow, where the send limit
   * key differs per flow (a dial-in flow without a number). Default: `sendLimitKey`.
   */
  startKey?(context: Readonly<Record<string, unknown>>, env: FlowEnvironment): string;
  /** The machine event for a user event. Secrets are hashed here; a new OTP goes to `memory` only. */
  toEvent(
    event: ParsedUserEvent,
    step: { flowId: string; now: number; memory: EffectMemory },
    env: FlowEnvironment,
  ): InternalEvent;
  readonly effects: Readonly<Partial<Record<EffectKind, EffectDefinition>>>;
  /**
   * Route keys that point at this flow from now on, written with the commit from `previous` to `next`.
   * A number appears in them only as a keyed hash (`env.secrets`), never in clear.
   */
  routes?(previous: AnyMachineSnapshot | undefined, next: AnyMachineSnapshot, env: FlowEnvironment): readonly string[];
  /**
   * Keys a new flow must hold alone while its code lives (`codeTtlMs`): the engine claims them (set if absent) before
   * the flow is written, and draws a new `machineInput` while one is taken (a dial-in reference: decision 1440).
   */
  reservations?(machineInput: Readonly<Record<string, unknown>>): readonly string[];
  /**
   * True when a flow that takes a route key from another flow ends that one: the engine applies
   * `{ type: 'superseded' }` to the flow the key pointed to before (USSD: decision 1280).
   */
  readonly supersedes?: boolean;
  /**
   * When the flow's timer must next wake it, read from the snapshot alone (an escalating plan's next send); undefined:
   * no timer. The engine schedules it in the store with the commit that makes it due, and then applies `timer`.
   */
  wakeAt?(snapshot: AnyMachineSnapshot): number | undefined;
  /** The send the flow's plan makes by itself next, unless a correct code comes first (the view's `next`). */
  nextSend?(snapshot: AnyMachineSnapshot): { readonly channel: PhoneChannel; readonly at: number } | undefined;
  /**
   * The effect the flow's timer committed and still awaits, if any: an instance that wakes the flow runs it when it
   * wins the effect's claim, so a send whose timer's instance died before making it is made once, by another.
   */
  timerEffect?(snapshot: AnyMachineSnapshot): EffectRequest | undefined;
  /** The provider event this kind of flow takes, if any. */
  readonly providerEvent?: ProviderEventRoute;
}

/** The machine event of a user event for flows that keep no secret of their own (USSD, phone). */
export function plainUserEvent(event: ParsedUserEvent, now: number): InternalEvent {
  if (event.type === 'submit-code') return { type: event.type, now, code: event.code };
  if (event.type === 'resend' && event.channel !== undefined) return { type: event.type, now, channel: event.channel };
  return { type: event.type, now };
}
