import { parseInput } from '@verikit/provider';
import type { z } from 'zod';
import { ConflictError } from '../errors/conflict-error.js';
import { callOptionsOf, type CallOptions, type ParsedStartInput, type StartInput } from '../inputs/inputs.js';
import type { AnyMachineSnapshot } from 'xstate';
import type { EffectMemory, FlowDefinition, FlowEnvironment } from '../flows/flow-definition.js';
import type { EffectRequest } from '../flows/flow-context.js';
import { startKeys } from '../ownership/start-keys.js';
import { OnceClaims } from '../inbound/once-claims.js';
import { generateFlowId } from '../secrets/secrets.js';
import { recordSchemaVersion, type FlowRecord, type StoreCall } from '../store/flow-store.js';
import { startClaimAttemptKey, startClaimMarkerKey, startFenceKey, startParamsKey } from '../keys/store-keys.js';
import { markReplayed, paramPrints, requireSameParams, type ParamPrints } from './idempotent-call.js';
import { effectsOf, type CommitLoop } from './commit-loop.js';
import type { EffectRunner } from './effect-runner.js';
import { underDeadline, type CallDeadlines } from './call-deadlines.js';
import type { FlowRecords } from './flow-records.js';
import type { EngineSettings } from './options.js';
import type { SendLimit } from './send-limit.js';
import type { FlowView, LazyView } from '../flows/view.js';

/** What starting a flow uses. */
export interface StartDeps {
  readonly settings: EngineSettings;
  readonly env: FlowEnvironment;
  readonly records: FlowRecords;
  readonly commits: CommitLoop;
  readonly limits: SendLimit;
  /** Parses the input, unless it is one this engine's `parseStartInput` returned. */
  readonly inputs: StartInputs;
  readonly effects: EffectRunner;
  /** The deadlines of provider calls: a lookup before the first send shares them (decision 1470). */
  readonly deadlines: CallDeadlines;
  /** Reads a flow as of now (`verikit.get`). */
  readonly read: (flowId: string, call?: StoreCall) => Promise<FlowView>;
  /** The engine call's share of the store. */
  readonly call?: StoreCall;
}

/** How long a start with an idempotency key waits for the same start under way elsewhere, and how often it looks. */
const repeatWaitSteps = 40;
const repeatWaitStepMs = 50;

/** The flow a start key points to, when it still exists (and, unless `evenDone`, is not finished). */
async function flowAt(deps: StartDeps, key: string, evenDone: boolean): Promise<FlowView | undefined> {
  const flowId = await deps.settings.store.getRoute(key, deps.call);
  if (flowId === undefined) return undefined;
  const view = await deps.read(flowId, deps.call).catch((error: unknown) => {
    if ((error as { code?: unknown }).code === 'flow_not_found') return undefined;
    throw error;
  });
  return view !== undefined && (evenDone || !view.done) ? view : undefined;
}

/** The flow of a start with this idempotency key made elsewhere a moment ago, once it is written; undefined if not. */
async function awaitRepeat(deps: StartDeps, key: string): Promise<FlowView | undefined> {
  for (let step = 0; step < repeatWaitSteps; step += 1) {
    const view = await flowAt(deps, key, true);
    if (view !== undefined) return view;
    await new Promise((resolve) => setTimeout(resolve, repeatWaitStepMs));
  }
  return undefined;
}

const underWay = () => new ConflictError('a start with this idempotency key is still under way: retry in a moment');

/** A start's hold on its idempotency key: the attempt, and how to give it back. */
interface StartClaim {
  readonly attempt: number;
  readonly release: () => Promise<void>;
}

/**
 * Claims a start with this idempotency key (`startKeys.idempotency`) for this call. A start refused before its flow
 * is written (a limit, a conflict, a store failure) gives it back, so a retry with the same key runs afresh at once,
 * as Stripe saves a result only once the request started executing (decision 1262). When another call holds the key
 * and writes no flow for a while (its instance died between the claim and the write, or it is stuck), this call
 * fences that attempt off (`startFenceKey`: the holder checks it just before it writes) and takes the start over,
 * rather than answering 409 until the holder's lease lapses (decision 1542). Resolves to a flow when the holder's
 * start was written meanwhile.
 */
async function claimStart(
  deps: StartDeps,
  repeatKey: string,
  call: StoreCall | undefined,
): Promise<StartClaim | FlowView> {
  const { store, policies } = deps.settings;
  const claims = new OnceClaims(store, {
    replayTtlMs: policies.retentionMs,
    leaseMs: policies.effectTimeoutMs * 2,
    keys: { marker: startClaimMarkerKey, attempt: startClaimAttemptKey },
    call,
  });
  for (let takeOvers = 0; ; takeOvers += 1) {
    const admission = await claims.admit(repeatKey);
    if (admission.kind === 'admitted')
      return { attempt: admission.attempt, release: () => claims.release(repeatKey, admission.attempt) };
    // `duplicate` cannot be: a start records no `done`; its flow's route says it is done.
    if (admission.kind !== 'in-progress' || takeOvers === 1) throw underWay();
    const written = await awaitRepeat(deps, repeatKey);
    if (written !== undefined) return written;
    // The holder wrote nothing: fence it off. Losing the fence means the holder is writing now.
    if (!(await store.claim(startFenceKey(repeatKey, admission.attempt), policies.retentionMs, call)))
      return (await awaitRepeat(deps, repeatKey)) ?? Promise.reject(underWay());
    await claims.release(repeatKey, admission.attempt);
  }
}

/** The flow a repeated start gets, marked replayed, once its parameters are the first start's (decision 1660). */
async function replayOf(deps: StartDeps, repeatKey: string, prints: ParamPrints, view: FlowView): Promise<FlowView> {
  const stored = await deps.settings.store.getRoute(startParamsKey(repeatKey), deps.call);
  if (stored !== undefined) requireSameParams(JSON.parse(stored) as ParamPrints, prints);
  return markReplayed(view);
}

/** How many machine inputs a start draws before it gives up on finding its reservations free. */
const maxReservationDraws = 5;

/**
 * Claims the keys the definition reserves for a new flow (decision 1440), drawing a new machine input while one is
 * taken; returns the input whose keys it holds. A claim taken by a draw that then loses another key stays until it
 * lapses (`codeTtlMs`): it names no flow and blocks nothing but that key.
 */
async function reserve(
  deps: StartDeps,
  definition: FlowDefinition,
  first: Record<string, unknown>,
  draw: () => Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const { store, policies } = deps.settings;
  if (definition.reservations === undefined) return first;
  let candidate = first;
  for (let draws = 1; ; draws += 1) {
    const keys = definition.reservations(candidate);
    const claimed = await Promise.all(keys.map((key) => store.claim(key, policies.codeTtlMs, deps.call)));
    if (claimed.every(Boolean)) return candidate;
    if (draws === maxReservationDraws)
      throw new ConflictError(`no free ${definition.kind} reference after ${maxReservationDraws} draws`);
    candidate = draw();
  }
}

/**
 * `verikit.start`: checks the input (once: an input `deps.inputs` parsed already is taken as it is) and what the
 * provider can do, passes the send guard (for the `client` of `options`) and takes a unit of the recipient's send
 * limit, writes the new flow (version 1), then runs its first provider call. Resolves once that call settled.
 */
export async function startFlow(deps: StartDeps, rawInput: StartInput, options?: CallOptions): Promise<FlowView> {
  const { settings, env, records, commits, limits, call } = deps;
  const input = deps.inputs.of(rawInput);
  const { client, idempotencyKey, owner } = callOptionsOf(options);
  const flow = records.flow(input.kind);
  const { definition } = flow;
  definition.check(input, env);
  const id = generateFlowId();
  const now = settings.clock.now();
  const memory: EffectMemory = {};
  let machineInput = definition.machineInput(input, { flowId: id, now, memory }, env);
  const numberKey = definition.sendLimitKey(machineInput, env);
  const sameStartKey = definition.startKey?.(machineInput, env) ?? numberKey;
  const { store, policies } = settings;
  // A repeat of a start (same idempotency key and parameters), or a start for a number with a live flow of the
  // same kind and owner, is answered with that flow: nothing is sent, no limit is used. The same key with other
  // parameters is refused (decision 1660).
  const repeatKey =
    idempotencyKey === undefined ? undefined : startKeys.idempotency(env.secrets, owner, idempotencyKey);
  const liveKey = owner === undefined ? undefined : startKeys.live(env.secrets, owner, input.kind, sameStartKey);
  let claim: StartClaim | undefined;
  if (repeatKey !== undefined) {
    const prints = paramPrints(env.secrets, input as Readonly<Record<string, unknown>>);
    const repeated = await flowAt(deps, repeatKey, true);
    if (repeated !== undefined) return replayOf(deps, repeatKey, prints, repeated);
    const claimed = await claimStart(deps, repeatKey, call);
    if (!('attempt' in claimed)) return replayOf(deps, repeatKey, prints, claimed);
    claim = claimed;
    // The parameters before the flow: a repeat that finds the flow compares against them.
    await store.setRoute(startParamsKey(repeatKey), JSON.stringify(prints), policies.retentionMs, call);
  }
  let written: { view: LazyView; record: FlowRecord; named: boolean } | undefined;
  let snapshot: AnyMachineSnapshot;
  let actions: readonly unknown[];
  let effects: EffectRequest[];
  try {
    if (liveKey !== undefined) {
      const live = await flowAt(deps, liveKey, false);
      if (live !== undefined) {
        if (repeatKey !== undefined) await store.setRoute(repeatKey, live.id, policies.retentionMs, call);
        return live;
      }
    }
    // What the provider knows of the recipient (a plan without the channels that cannot reach it): asked only for a
    // start that will send, before the guard and the limit count its first channel (decision 1690).
    if (definition.consultProvider !== undefined)
      machineInput = await definition.consultProvider(machineInput, env, {
        logger: settings.logger,
        ask: (call) =>
          underDeadline(deps.deadlines, policies.effectTimeoutMs, (signal) =>
            call({ signal, idempotencyKey: `${id}:reach`, logger: settings.logger }),
          ),
      });
    machineInput = await reserve(deps, definition, machineInput, () =>
      definition.machineInput(input, { flowId: id, now, memory }, env),
    );
    [snapshot, actions] = flow.transitions.initial(machineInput);
    const startsIn = definition.initialState?.(machineInput);
    if (startsIn !== undefined) {
      snapshot = flow.transitions.resolve(startsIn, snapshot.context as Record<string, unknown>);
      actions = [];
    }
    const record: FlowRecord = {
      version: 1,
      schemaVersion: recordSchemaVersion,
      id,
      kind: input.kind,
      value: snapshot.value as string,
      context: snapshot.context as Record<string, unknown>,
      createdAt: now,
      updatedAt: now,
    };
    await limits.admit(numberKey, machineInput, client, now, call);
    // Last before the write: a retry that took this start over (this instance seemed dead) has the fence, and then
    // this attempt writes nothing (decision 1542).
    if (
      claim !== undefined &&
      !(await store.claim(startFenceKey(repeatKey!, claim.attempt), policies.retentionMs, call))
    )
      throw new ConflictError('a retry with this idempotency key took this start over');
    effects = effectsOf(actions);
    written = await commits.write({ record, next: snapshot, cause: 'start', now, effects, call });
    if (written === undefined) throw new ConflictError('a flow with this id exists already');
  } catch (error) {
    // Refused before anything was written: the key is free again (a failure to free it leaves the lease to lapse).
    await claim?.release().catch(() => undefined);
    throw error;
  }
  // A repeat of this start, or a start for the same owner, kind and number, finds the flow through these keys.
  if (repeatKey !== undefined) await store.setRoute(repeatKey, id, policies.retentionMs, call);
  if (liveKey !== undefined) await store.setRoute(liveKey, id, policies.codeTtlMs, call);
  // Until this call returns, the id has reached nobody, unless a route key or a listener was given it (decision 1830).
  const named = written.named || repeatKey !== undefined || liveKey !== undefined;
  const committed = written;
  return commits.whileUnseen(id, named, () =>
    deps.effects.run(id, effects, committed.view, memory, { record: committed.record, flow, snapshot }, call),
  );
}

/**
 * Parses each start input once. `parse` checks and canonicalises an input (numbers read into E.164) and returns it
 * frozen; `of` takes an input this parser returned as it is, and parses any other. The HTTP layer parses a start to
 * show it to `authorize` (`verikit.parseStartInput`) and hands the same object to `verikit.start`, which then reads
 * no number again. Frozen, so nothing between the two can change what was checked; known by identity, so no other
 * object passes for parsed.
 */
export class StartInputs {
  readonly #schema: z.ZodType<ParsedStartInput, unknown>;
  readonly #byHand: ((input: unknown) => ParsedStartInput | undefined) | undefined;
  readonly #parsed = new WeakSet<object>();

  /**
   * `byHand`: a check of some inputs without the schema, returning what the schema would (or undefined, and the
   * schema parses the input): the phone start's (`phoneStartByHand` in inputs/inputs.ts).
   */
  constructor(schema: z.ZodType<ParsedStartInput, unknown>, byHand?: (input: unknown) => ParsedStartInput | undefined) {
    this.#schema = schema;
    this.#byHand = byHand;
  }

  /** The input checked and canonicalised, frozen; an `InvalidInputError` naming each problem otherwise. */
  parse(input: unknown): ParsedStartInput {
    const parsed = this.#checked(input);
    this.#parsed.add(parsed);
    return parsed;
  }

  /**
   * `input` itself when `parse` returned it; otherwise `input` checked as `parse` does, not remembered: what only a
   * start sees is never handed back to `of`.
   */
  of(input: unknown): ParsedStartInput {
    return typeof input === 'object' && input !== null && this.#parsed.has(input)
      ? (input as ParsedStartInput)
      : this.#checked(input);
  }

  #checked(input: unknown): ParsedStartInput {
    const parsed = this.#byHand?.(input) ?? parseInput(this.#schema, input);
    for (const value of Object.values(parsed)) if (typeof value === 'object' && value !== null) Object.freeze(value);
    return Object.freeze(parsed);
  }
}
