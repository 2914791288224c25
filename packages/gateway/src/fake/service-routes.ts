import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { magicBehaviourOf } from './gateway-magic-numbers.js';
import type { GatewayBase } from '../endpoints.js';
import { gatewayFakeEndpoints, type GatewayFakeEndpoint } from './gateway-fake-endpoints.js';
import type { GatewayFakeEvent } from './gateway-fake-options.js';
import type { GatewayFakeService } from './gateway-fake-service.js';
import { redactBody } from './redact-body.js';

export interface ServiceRouteDependencies {
  readonly service: GatewayFakeService;
  readonly apiKey: string;
  readonly latency: { ms: number };
  readonly slowMs: number;
  readonly emit: ((event: GatewayFakeEvent) => void) | undefined;
}

const digest = (value: string) => createHash('sha256').update(value).digest();
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const maxLatencyMs = 60_000;

function envelope(
  success: boolean,
  message: string,
  data: Record<string, unknown> | null,
  extra?: Record<string, unknown>,
) {
  return { success, message, code: 0, data, ...extra };
}

/** What was wrong with a refused body: told to `onRequest` listeners (the CLI prints it), never on the wire. */
type BodyErrors = ReadonlyArray<{ readonly field: string; readonly message: string }>;

/**
 * Mounts the service endpoints of one base address (`main`: `{base_url}/gateway/api/v1/…`; `ussd`: USSD
 * initiation at `{ussd_base_url}/messagingserv/gateway/api/v1/…`), with the apiKey check and body validation.
 * Every failure is the interface's envelope with the endpoint's failure message (service-interface §7.1): a missing
 * or wrong apiKey and a malformed body have no answer of their own there, and nothing is added beside the four fields.
 */
export function mountServiceRoutes(app: Hono, deps: ServiceRouteDependencies, base: GatewayBase): void {
  const expectedKey = digest(deps.apiKey);
  const authorised = (header: string | undefined) =>
    header !== undefined && timingSafeEqual(digest(header), expectedKey);

  const handler = (endpoint: GatewayFakeEndpoint) => async (c: Context) => {
    const startedAt = performance.now();
    let body: unknown;
    const answer = (status: number, payload: unknown, asText = false, errors?: BodyErrors) => {
      deps.emit?.({
        type: 'request',
        method: c.req.method,
        path: c.req.path,
        status,
        operation: endpoint.operation,
        ...(body === undefined ? {} : { summary: redactBody(body) }),
        ...(errors === undefined ? {} : { errors }),
        durationMs: Math.round((performance.now() - startedAt) * 10) / 10,
      });
      return asText ? c.html(payload as string, status as 200) : c.json(payload as object, status as 200);
    };
    const failure = (status: number, extra?: Record<string, unknown>) =>
      answer(status, envelope(false, endpoint.failureMessage, null, extra));
    const refuse = (status: number, errors?: BodyErrors) =>
      answer(status, envelope(false, endpoint.failureMessage, null), false, errors);

    const requested = Number(c.req.header('x-sandbox-latency') ?? 0);
    const latency = Math.min(
      maxLatencyMs,
      deps.latency.ms + (Number.isFinite(requested) && requested > 0 ? requested : 0),
    );
    if (latency > 0) await sleep(latency);

    if (!authorised(c.req.header('apikey'))) return refuse(401, [{ field: 'apiKey', message: 'is missing or wrong' }]);
    try {
      body = JSON.parse(await c.req.text());
    } catch {
      return refuse(400, [{ field: 'body', message: 'must be JSON' }]);
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return refuse(400, [{ field: 'body', message: 'must be a JSON object' }]);

    const magic = magicBehaviourOf(body as Record<string, unknown>);
    if (magic === 'unauthorized') return refuse(401, [{ field: 'apiKey', message: 'refused (magic number)' }]);
    if (magic === 'server-error') return failure(500);
    if (magic === 'rate-limited') return failure(429);
    if (magic === 'not-json')
      return answer(200, '<!doctype html><title>Bad gateway</title><p>upstream error</p>', true);
    if (magic === 'wrong-shape') return answer(200, { ok: true });
    if (magic === 'slow') await sleep(deps.slowMs);

    const parsed = endpoint.schema.safeParse(body);
    if (!parsed.success) {
      const errors = parsed.error.issues.map((issue) => ({
        field: issue.path.map(String).join('.') || 'body',
        message: issue.message,
      }));
      return refuse(400, errors);
    }
    if (magic === 'rejected') return failure(200);
    if (magic === 'no-data') return answer(200, envelope(true, endpoint.successMessage, null));

    const outcome = deps.service.handle(endpoint.operation, parsed.data);
    return outcome.ok
      ? answer(outcome.status, envelope(true, endpoint.successMessage, outcome.data))
      : failure(outcome.status, outcome.extra);
  };

  for (const endpoint of gatewayFakeEndpoints) if (endpoint.base === base) app.post(endpoint.path, handler(endpoint));
}
