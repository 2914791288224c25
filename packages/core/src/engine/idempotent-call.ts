import { VerikitError } from '@verikit/provider';
import { ConflictError } from '../errors/conflict-error.js';
import { IdempotencyKeyReusedError } from '../errors/idempotency-key-reused-error.js';
import { idempotentCallClaimKey, idempotentCallKey } from '../keys/store-keys.js';
import type { SecretBox } from '../secrets/secrets.js';
import type { FlowStore, StoreCall } from '../store/flow-store.js';

/** A call's parameters as stored for its idempotency key: one keyed hash per field, never a value. */
export type ParamPrints = Readonly<Record<string, string>>;

/** The keyed hash of each parameter (JSON of its value), so a repeat can be compared without storing any value. */
export function paramPrints(secrets: SecretBox, params: Readonly<Record<string, unknown>>): ParamPrints {
  const prints: Record<string, string> = {};
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) prints[name] = secrets.hash('idempotency-param', `${name}\0${JSON.stringify(value)}`);
  }
  return prints;
}

/** Throws an {@link IdempotencyKeyReusedError} naming the parameters in which `stored` and `now` differ. */
export function requireSameParams(stored: ParamPrints, now: ParamPrints): void {
  const names = [...new Set([...Object.keys(stored), ...Object.keys(now)])];
  const mismatch = names.filter((name) => stored[name] !== now[name]).sort();
  if (mismatch.length > 0) throw new IdempotencyKeyReusedError(mismatch);
}

/** Answers that repeat an earlier call with the same idempotency key (`Idempotent-Replayed: true` over HTTP). */
const replays = new WeakSet<object>();

/** Marks an answer as a replay of an earlier call with the same key; returns it. */
export function markReplayed<T extends object>(answer: T): T {
  replays.add(answer);
  return answer;
}

/**
 * True when the engine answered a call with an idempotency key by replaying the answer of the first call with that
 * key (`start`, `send`, `sendSms`, `sendWhatsApp`): nothing was sent by this call. The HTTP layer says so with
 * `Idempotent-Replayed: true`.
 */
export function isReplayed(answer: unknown): boolean {
  return typeof answer === 'object' && answer !== null && replays.has(answer);
}

/** What a call with an idempotency key needs. */
export interface IdempotentCallDeps {
  readonly store: FlowStore;
  readonly secrets: SecretBox;
  /** How long a key and its answer are kept (`policies.retentionMs`, a day by default). */
  readonly ttlMs: number;
  /** How long a repeat waits for the first call's answer before it answers `conflict` (retry later). */
  readonly waitMs: number;
  readonly call?: StoreCall | undefined;
}

/** One call made with an idempotency key. */
export interface IdempotentCall<T> {
  /** The family of calls the key belongs to (`message`, `event`): a key names one call across a family. */
  readonly family: string;
  readonly idempotencyKey: string;
  /** The parameters that must be the same on a repeat. */
  readonly params: Readonly<Record<string, unknown>>;
  readonly run: () => Promise<T>;
  /** The answer as stored (no secret, no number); `decode` gives back the answer a repeat gets. */
  readonly encode: (answer: T) => string;
  readonly decode: (stored: string) => Promise<T> | T;
}

interface StoredCall {
  /** The parameters' keyed hashes. */
  readonly p: ParamPrints;
  /** The answer, once the call has one. */
  readonly r?: string;
  /** The first call's error, once it failed after its request may have gone out: a repeat gets it again. */
  readonly e?: {
    readonly code: string;
    readonly message: string;
    readonly isRetryable: boolean;
    readonly field?: string;
  };
}

const waitStepMs = 25;

function parseStored(value: string | undefined): StoredCall | undefined {
  if (value === undefined) return undefined;
  try {
    const parsed = JSON.parse(value) as StoredCall;
    return typeof parsed === 'object' && parsed !== null && typeof parsed.p === 'object' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function storedError(error: unknown): NonNullable<StoredCall['e']> {
  if (!VerikitError.isInstance(error))
    return { code: 'provider_error', message: 'the first call with this idempotency key failed', isRetryable: false };
  return {
    code: error.code,
    message: error.message,
    isRetryable: error.isRetryable,
    ...(error.field === undefined ? {} : { field: error.field }),
  };
}

/**
 * Makes a call once per idempotency key, across every instance sharing the store (decision 1660): the first call
 * claims the key, stores its parameters' keyed hashes, runs, and stores its answer (or its error) for `ttlMs`. A
 * repeat with the same parameters gets that answer, marked replayed ({@link isReplayed}), and sends nothing; one
 * with other parameters gets an {@link IdempotencyKeyReusedError} naming them; one that arrives while the first is
 * under way waits for its answer, up to `waitMs`, then answers a retryable `ConflictError`. A first call that died
 * before its answer was stored leaves the key answering that conflict until it expires: the send may have gone out,
 * so it is never made twice.
 */
export async function callOnce<T extends object>(deps: IdempotentCallDeps, call: IdempotentCall<T>): Promise<T> {
  const { store, secrets, ttlMs } = deps;
  const key = idempotentCallKey(secrets.hash('idempotent-call', `${call.family}\0${call.idempotencyKey}`));
  const prints = paramPrints(secrets, call.params);
  const deadline = Date.now() + deps.waitMs;
  for (;;) {
    const stored = parseStored(await store.getRoute(key, deps.call));
    if (stored !== undefined) {
      requireSameParams(stored.p, prints);
      if (stored.r !== undefined) return markReplayed(await call.decode(stored.r));
      if (stored.e !== undefined) {
        const { code, message, isRetryable, field } = stored.e;
        throw markReplayed(new VerikitError(code, message, { isRetryable, ...(field === undefined ? {} : { field }) }));
      }
    } else if (await store.claim(idempotentCallClaimKey(key), ttlMs, deps.call)) {
      // The parameters first: a repeat with other ones is refused while this call runs.
      await store.setRoute(key, JSON.stringify({ p: prints }), ttlMs, deps.call);
      let answer: T;
      try {
        answer = await call.run();
      } catch (error) {
        await store
          .setRoute(key, JSON.stringify({ p: prints, e: storedError(error) }), ttlMs, deps.call)
          .catch(() => undefined);
        throw error;
      }
      await store.setRoute(key, JSON.stringify({ p: prints, r: call.encode(answer) }), ttlMs, deps.call);
      return answer;
    }
    if (Date.now() >= deadline)
      throw new ConflictError(
        'a call with this idempotency key is under way (or ended without an answer): retry later, or use a new key',
      );
    await new Promise((resolve) => setTimeout(resolve, waitStepMs));
  }
}
