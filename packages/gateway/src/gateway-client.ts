import {
  ProviderAuthenticationError,
  ProviderProtocolError,
  ProviderRejectedError,
  ProviderUnavailableError,
  safeProviderMessage,
  type Logger,
  type ProviderCallContextV1,
} from '@verikit/provider';
import ky, { type AfterResponseHook, type BeforeRequestHook, type KyInstance, type Options } from 'ky';
import { gatewayEndpoints, type GatewayOperation } from './endpoints.js';
import { readEnvelope, type Envelope } from './envelope.js';
import type { GatewayRequestInfo } from './gateway-options.js';
import { isConnectionRefused, networkCodeOf, safeCause, type NetworkFailure } from './network-error.js';
import type { ResolvedGatewayOptions } from './options-schema.js';

/** A response of the service that was read: its HTTP status and its envelope (2xx only). */
export interface GatewayReply {
  readonly status: number;
  readonly envelope: Envelope;
}

/** Sends one operation's JSON body and returns the envelope of a 2xx answer; throws a verikit error otherwise. */
export interface GatewayClient {
  post(operation: GatewayOperation, body: Record<string, unknown>, context: ProviderCallContextV1): Promise<GatewayReply>;
}

/** The per-request data hooks and the fetch wrapper read. */
interface CallState extends Record<string, unknown> {
  readonly operation: GatewayOperation;
  readonly idempotencyKey: string;
  readonly logger: Logger;
  /** The JSON body, sent by the fetch wrapper. */
  readonly body: string;
  /** Attempts the fetch wrapper made so far. */
  attempts: number;
}

/**
 * The call travels beside the Request ky builds, in an option ky does not know (so it hands it to
 * the fetch wrapper), not inside it: a Request with a body holds it as a stream, which ky clones
 * (tees) for retries and fetch then pumps; a body-less Request clones for free. The wrapper also
 * logs each attempt, so the provider registers no hook of its own. See docs/decisions/0101-lean-ky.md.
 */
const callOption = 'verikitCall';
type CallOptions = Options & { [callOption]: CallState; context: CallState };

/** Creates the one ky instance of a provider and the function that talks to the service through it. */
export function createGatewayClient(options: ResolvedGatewayOptions): GatewayClient {
  const fetchImplementation = options.fetch ?? globalThis.fetch;
  const apiKey = options.apiKey;
  const urls = new Map<GatewayOperation, string>();
  const paths = new Map<GatewayOperation, string>();
  for (const [operation, endpoint] of Object.entries(gatewayEndpoints) as Array<[GatewayOperation, (typeof gatewayEndpoints)[GatewayOperation]]>) {
    const url = (endpoint.base === 'ussd' ? options.ussdBaseUrl : options.baseUrl) + endpoint.path;
    urls.set(operation, url);
    paths.set(operation, new URL(url).pathname);
  }

  // The apiKey is set here, after every hook ran, on a plain copy of the headers: no hook or logger
  // ever sees it, not even one that keeps the request and reads its headers later. A plain object,
  // not a Headers, because fetch copies what it is given into a Headers of its own anyway.
  const send = (request: Request, init?: RequestInit): Promise<Response> => {
    const call = (init as Record<string, unknown>)[callOption] as CallState;
    call.logger.debug('verikit.gateway.request', {
      operation: call.operation,
      path: paths.get(call.operation),
      attempt: call.attempts,
      idempotencyKey: call.idempotencyKey,
    });
    call.attempts += 1;
    const headers: Record<string, string> = {};
    for (const [name, value] of request.headers) headers[name] = value;
    headers['apikey'] = apiKey;
    return fetchImplementation(request.url, {
      method: 'POST',
      headers,
      body: call.body,
      signal: request.signal,
      redirect: 'manual',
    });
  };

  const infoOf = (context: Record<string, unknown>, retryCount: number): GatewayRequestInfo => {
    const state = context as CallState;
    return { operation: state.operation, attempt: retryCount, idempotencyKey: state.idempotencyKey };
  };

  // Errors thrown by the user's hooks are the user's own: they are passed on, not converted.
  const hookErrors = new WeakSet<object>();
  const guarded = async (run: () => void | Promise<void>): Promise<void> => {
    try {
      await run();
    } catch (error) {
      const thrown = typeof error === 'object' && error !== null ? error : new Error(String(error));
      hookErrors.add(thrown);
      throw thrown;
    }
  };
  const beforeRequest: BeforeRequestHook[] = [
    ...(options.hooks?.beforeRequest ?? []).map(
      (hook): BeforeRequestHook =>
        (request, normalized, state) =>
          guarded(() => hook(request, infoOf(normalized.context, state.retryCount))),
    ),
  ];
  const afterResponse: AfterResponseHook[] = (options.hooks?.afterResponse ?? []).map(
    (hook): AfterResponseHook =>
      (request, normalized, response, state) =>
        guarded(() => hook(request, response, infoOf(normalized.context, state.retryCount))),
  );

  const api: KyInstance = ky.create({
    method: 'post',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    timeout: options.timeout,
    throwHttpErrors: false,
    retry: {
      limit: options.connectionRetries,
      methods: ['post'],
      statusCodes: [],
      afterStatusCodes: [],
      shouldRetry: ({ error }) => isConnectionRefused(error),
      delay: () => options.connectionRetryDelayMs,
    },
    fetch: send as typeof globalThis.fetch,
    hooks: { beforeRequest, afterResponse },
  });

  const clean = (message: string | undefined) => safeProviderMessage(message?.split(apiKey).join('[redacted]'));

  function networkError(operation: GatewayOperation, error: unknown, signal: AbortSignal): ProviderUnavailableError {
    const code = networkCodeOf(error);
    let failure: NetworkFailure = 'network';
    let message = `gateway ${operation}: the service could not be reached`;
    if (signal.aborted) {
      failure = 'aborted';
      message = `gateway ${operation}: the call was aborted before the service answered`;
    } else if (error instanceof Error && error.name === 'TimeoutError') {
      failure = 'timeout';
      message = `gateway ${operation}: the service did not answer within ${options.timeout} ms`;
    } else if (code === 'ECONNREFUSED') {
      failure = 'connection-refused';
      message = `gateway ${operation}: the connection was refused`;
    }
    return new ProviderUnavailableError(message, { cause: safeCause(failure, code) });
  }

  function statusError(operation: GatewayOperation, status: number, text: string) {
    const reading = readEnvelope(operation, status, text);
    const providerMessage = reading.ok ? clean(reading.envelope.message) : undefined;
    const quoted = providerMessage === undefined ? '' : `: ${providerMessage}`;
    if (status === 401 || status === 403) {
      return new ProviderAuthenticationError(`gateway ${operation}: the service refused the API key (HTTP ${status})`);
    }
    if (status === 408 || status === 429 || status >= 500) {
      return new ProviderUnavailableError(`gateway ${operation}: the service is unavailable (HTTP ${status})${quoted}`);
    }
    if (status >= 400) {
      return new ProviderRejectedError(`gateway ${operation}: the service refused the request (HTTP ${status})${quoted}`, {
        ...(providerMessage === undefined ? {} : { providerMessage }),
      });
    }
    return new ProviderProtocolError(`gateway ${operation}: unexpected HTTP ${status} (redirects are not followed)`, { field: 'status' });
  }

  return {
    async post(operation, body, context) {
      const startedAt = performance.now();
      const logger = context.logger;
      const call: CallState = { operation, idempotencyKey: context.idempotencyKey, logger, body: JSON.stringify(body), attempts: 0 };
      const callOptions: CallOptions = { signal: context.signal, context: call, [callOption]: call };
      let status: number;
      let text: string;
      try {
        const response = await api(urls.get(operation)!, callOptions);
        status = response.status;
        text = await response.text();
      } catch (error) {
        if (typeof error === 'object' && error !== null && hookErrors.has(error)) throw error;
        const converted = networkError(operation, error, context.signal);
        logger.warn('verikit.gateway.failed', { operation, error: converted.code, reason: converted.cause instanceof Error ? converted.cause.message : undefined });
        throw converted;
      }
      const durationMs = Math.round((performance.now() - startedAt) * 10) / 10;
      if (status < 200 || status > 299) {
        const error = statusError(operation, status, text);
        logger.warn('verikit.gateway.failed', { operation, status, error: error.code, durationMs });
        throw error;
      }
      const reading = readEnvelope(operation, status, text);
      if (!reading.ok) {
        logger.warn('verikit.gateway.failed', { operation, status, error: reading.error.code, field: reading.error.field, durationMs });
        throw reading.error;
      }
      const endpoint = gatewayEndpoints[operation];
      const message = reading.envelope.message;
      const recognised = message === (reading.envelope.success ? endpoint.successMessage : endpoint.failureMessage);
      logger.debug('verikit.gateway.response', { operation, status, success: reading.envelope.success, recognised, durationMs });
      return { status, envelope: reading.envelope };
    },
  };
}

/** The error for a 2xx `success: false` envelope: the service understood the request and refused it. */
export function rejectedError(operation: GatewayOperation, envelope: Envelope, apiKey: string): ProviderRejectedError {
  const providerMessage = safeProviderMessage(envelope.message?.split(apiKey).join('[redacted]'));
  return new ProviderRejectedError(`gateway ${operation}: the service refused the request${providerMessage === undefined ? '' : `: ${providerMessage}`}`, {
    ...(providerMessage === undefined ? {} : { providerMessage }),
  });
}
