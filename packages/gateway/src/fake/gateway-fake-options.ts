import type { TestIdentity } from './test-identities.js';

/** Configuration of {@link startGatewayFake}. Every field is optional. */
export interface GatewayFakeOptions {
  /** Port to listen on, on 127.0.0.1: the base address of every endpoint but USSD initiation. Default 0: a free port. */
  port?: number;
  /**
   * Port of the second listener, on 127.0.0.1: the USSD base address, where USSD initiation is served (the interface
   * puts it on a different host). Default 0: a free port.
   */
  ussdPort?: number;
  /** The apiKey the fake accepts. Default `sandbox-api-key`. */
  apiKey?: string;
  /** Where USSD_VERIFICATION webhooks go. Without it none are sent. */
  webhookUrl?: string;
  /** The webhook signing secret, `whsec_` + base64. Default: one generated per fake (see `webhookSecret` on the handle). */
  webhookSecret?: string;
  /** Added before every answer, in ms. Default 0. A request may ask for more with the `x-sandbox-latency` header. */
  latencyMs?: number;
  /** How long the magic "slow" numbers take, in ms. Default 3000. */
  slowMs?: number;
  /**
   * Waits before each webhook retry, in ms; attempts = length + 1. Default [1000, 5000, 25000]. A
   * receiver's `Retry-After` (seconds or an HTTP date) lengthens a wait, up to `webhookMaxRetryAfterMs`.
   */
  webhookRetryDelaysMs?: readonly number[];
  /** The longest wait a receiver's `Retry-After` may ask for, in ms; 0 ignores `Retry-After`. Default 60,000. */
  webhookMaxRetryAfterMs?: number;
  /** Timeout of one webhook attempt, in ms. Default 5000. */
  webhookTimeoutMs?: number;
  /** How long a phone verification code is valid, in ms. Default 10 minutes. */
  codeTtlMs?: number;
  /** Wrong codes allowed per phone verification. Default 5. */
  maxAttempts?: number;
  /** Test identities (BVN/NIN). Default {@link defaultTestIdentities}. */
  identities?: readonly TestIdentity[];
  /** Messages kept in the outbox; older ones are dropped. Default 1000. */
  outboxLimit?: number;
}

/** Something the fake did: a request it answered or a webhook attempt it made. */
export type GatewayFakeEvent =
  | {
      /** The fake answered a request. */
      readonly type: 'request';
      /** The HTTP method. */
      readonly method: string;
      /** The path, without the query string. */
      readonly path: string;
      /** The status answered. */
      readonly status: number;
      /** The service operation the path serves, when it is one (`phone.send`). */
      readonly operation?: string;
      /** The body with secrets (otp, code, number) masked. */
      readonly summary?: Readonly<Record<string, unknown>>;
      /**
       * Why a request was refused (a missing or wrong apiKey, a body that is not JSON, the fields that failed
       * validation): told here for the developer, never in the answer, which is the interface's envelope alone.
       */
      readonly errors?: ReadonlyArray<{
        /** The field refused (`apiKey`, `body`, or a body field such as `to`). */
        readonly field: string;
        /** What is wrong with it. */
        readonly message: string;
      }>;
      /** How long the fake took to answer, in ms. */
      readonly durationMs: number;
    }
  | {
      /** The fake attempted a webhook delivery. */
      readonly type: 'webhook';
      /** The `webhook-id`, the same for every attempt at one event. */
      readonly id: string;
      /** Where it was sent. */
      readonly url: string;
      /** 1 for the first attempt. */
      readonly attempt: number;
      /** The receiver's HTTP status, when it answered. */
      readonly status?: number;
      /** `timeout` or `network error` when it did not answer. */
      readonly error?: string;
      /** True when the receiver answered 2xx. */
      readonly delivered: boolean;
      /** True when another attempt will follow. */
      readonly willRetry: boolean;
      /** When `willRetry`: the wait before the next attempt, in ms (the schedule's, or the receiver's `Retry-After`). */
      readonly retryInMs?: number;
    };
