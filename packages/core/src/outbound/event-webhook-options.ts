import { z } from 'zod';
import { parseInput } from '@verikit/provider';
import { flowEventTypes, type FlowEventType } from '../flows/view.js';
import { onFirstUse } from '../inputs/inputs.js';

/** Why the engine stopped trying to deliver an event to the app's webhook. */
export type EventWebhookGiveUpReason =
  /** The receiver answered 410 Gone: it wants no more events. */
  | 'gone'
  /** `maxAttempts` attempts failed. */
  | 'attempts'
  /** The event became older than `maxAgeMs` before an attempt succeeded. */
  | 'age';

/** An event the engine gave up delivering: told to `onGiveUp`, and logged at warning (`verikit.event-webhook.given-up`). */
export interface EventWebhookFailure {
  /** The event's id, which was its `webhook-id`. */
  readonly eventId: string;
  /** The flow it happened to. */
  readonly flowId: string;
  /** What happened. */
  readonly type: FlowEventType;
  /** Why it was given up. */
  readonly reason: EventWebhookGiveUpReason;
  /** Attempts made. */
  readonly attempts: number;
  /** The HTTP status of the last attempt, when it got one. */
  readonly lastStatus?: number;
}

/** Options of `eventWebhook` (`createVerikit`): where the lifecycle events of every flow are POSTed. */
export interface EventWebhookOptions {
  /** Where events are POSTed: `https://…`; `http://` only to `localhost`, `127.0.0.1` or `[::1]`. No user or password. */
  url: string;
  /** The Standard Webhooks secret the receiver verifies with: `whsec_` and 24 to 64 bytes in base64. */
  secret: string;
  /** The event types sent. Default: all of them. */
  types?: readonly FlowEventType[];
  /** How long one POST may take, answer included, before it counts as failed. Default 10,000 ms. */
  timeoutMs?: number;
  /** Attempts per event before it is given up. Default 8. */
  maxAttempts?: number;
  /** An event older than this is given up, and dropped from its flow's record. Default 24 h. */
  maxAgeMs?: number;
  /** The wait after the first failed attempt; each next wait is 4 times longer, up to an hour. Default 5,000 ms. */
  retryDelayMs?: number;
  /**
   * How long one engine holds an event it is sending before another engine may send it (a process that died
   * mid-send). Must exceed `timeoutMs`. Default `timeoutMs` + 30,000 ms.
   */
  leaseMs?: number;
  /** How often this engine looks for events due (retries, and those of instances that died). 0: never. Default 5,000 ms. */
  pollMs?: number;
  /** Told when an event is given up. A throw is logged. */
  onGiveUp?: (failure: EventWebhookFailure) => void;
  /** The `fetch` the POSTs go through (a proxy's, an instrumented one). Default: the global `fetch`. */
  fetch?: typeof fetch;
}

/** The options with every default applied. */
export interface EventWebhookSettings {
  readonly url: string;
  readonly key: Buffer;
  readonly types: ReadonlySet<string>;
  readonly timeoutMs: number;
  readonly maxAttempts: number;
  readonly maxAgeMs: number;
  readonly retryDelayMs: number;
  readonly leaseMs: number;
  readonly pollMs: number;
  readonly onGiveUp: ((failure: EventWebhookFailure) => void) | undefined;
  /** The application's `fetch`; undefined: the global `fetch`, read when a POST is made. */
  readonly fetch: typeof fetch | undefined;
}

const allTypes = flowEventTypes;
const secretPrefix = 'whsec_';
const base64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The key of a Standard Webhooks secret (`whsec_<base64>`, 24 to 64 bytes once decoded), or undefined when
 * `secret` is not one. The message never holds the secret.
 */
export function webhookSecretKey(secret: unknown): Buffer | undefined {
  if (typeof secret !== 'string' || !secret.startsWith(secretPrefix)) return undefined;
  const encoded = secret.slice(secretPrefix.length);
  if (!base64.test(encoded) || encoded.length % 4 !== 0) return undefined;
  const key = Buffer.from(encoded, 'base64');
  return key.length >= 24 && key.length <= 64 ? key : undefined;
}
const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]']);

function urlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.username !== '' || url.password !== '') return 'must not hold a user or password';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && loopbackHosts.has(url.hostname)) return undefined;
  return 'must be https:// (http:// only to localhost)';
}

/** Built on the first engine given an `eventWebhook` (decision 1362). */
const schema = onFirstUse(() => {
  const functionSchema = z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', {
    error: 'must be a function',
  });
  return z
    .strictObject({
      url: z.string({ error: 'must be a URL' }).superRefine((value, context) => {
        const problem = urlProblem(value);
        if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
      }),
      secret: z.custom<string>((value) => webhookSecretKey(value) !== undefined, {
        error: 'must be a Standard Webhooks secret: whsec_ and 24 to 64 bytes in base64',
      }),
      types: z
        .array(z.enum(allTypes), { error: `must list event types: ${allTypes.join(', ')}` })
        .min(1)
        .optional(),
      timeoutMs: z.number().int().min(100).max(60_000).optional(),
      maxAttempts: z.number().int().min(1).max(50).optional(),
      maxAgeMs: z.number().int().min(1000).optional(),
      retryDelayMs: z.number().int().min(1).optional(),
      leaseMs: z.number().int().min(1).optional(),
      pollMs: z.number().int().min(0).optional(),
      onGiveUp: functionSchema.optional(),
      fetch: functionSchema.optional(),
    })
    .refine((options) => options.leaseMs === undefined || options.leaseMs > (options.timeoutMs ?? 10_000), {
      error: 'must exceed timeoutMs',
      path: ['leaseMs'],
    });
});

/** Checks `eventWebhook` (an `InvalidInputError` naming the field, never its value) and applies the defaults. */
export function resolveEventWebhook(options: EventWebhookOptions | undefined): EventWebhookSettings | undefined {
  if (options === undefined) return undefined;
  parseInput(schema(), options, 'eventWebhook');
  const timeoutMs = options.timeoutMs ?? 10_000;
  return {
    url: options.url,
    key: webhookSecretKey(options.secret)!,
    types: new Set(options.types ?? allTypes),
    timeoutMs,
    maxAttempts: options.maxAttempts ?? 8,
    maxAgeMs: options.maxAgeMs ?? 24 * 60 * 60_000,
    retryDelayMs: options.retryDelayMs ?? 5000,
    leaseMs: options.leaseMs ?? timeoutMs + 30_000,
    pollMs: options.pollMs ?? 5000,
    onGiveUp: options.onGiveUp,
    fetch: options.fetch,
  };
}
