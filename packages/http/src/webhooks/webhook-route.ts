import { createHash } from 'node:crypto';
import type { Clock, InboundEvent, ReceiveOptions, ReceiveResult } from '@verikit/core';
import { errorCode } from '@verikit/core/internal';
import {
  InvalidInputError,
  VerikitError,
  type Logger,
  type ProviderEventV1,
  type RawWebhookV1,
} from '@verikit/provider';
import { WebhookVerificationError } from './webhook-verification-error.js';
import { createHmacHeaderVerifier } from './hmac-header-verifier.js';
import { alreadyReadMessage, readRouteBody, type RouteAnswer, type RouteRequest } from '../routes/route-request.js';
import { webhookKeyOf } from './secret-key.js';
import { createStandardWebhooksVerifier } from './standard-webhooks-verifier.js';
import {
  requireWebhookSecret,
  resolveWebhookOptions,
  webhookOptionField,
  type ResolvedWebhookOptions,
  type WebhookOptions,
} from './webhook-options.js';
import { answerOf, failureOf, malformed, webhookAnswer, type WebhookResponseBody } from './webhook-response.js';
import type { VerifiedWebhook, WebhookVerifier } from './webhook-verifier.js';

/** What the webhook route needs: the engine's one entry for inbound events, the provider's parser, a clock and a logger. */
export interface WebhookRouteDeps {
  /** Applies a verified inbound event once per id: the engine's `receive`, which keeps the claims and markers. */
  receive(inbound: InboundEvent, options: ReceiveOptions): Promise<ReceiveResult>;
  /** Reads a verified webhook into an event: the provider's `webhooks.parse`. */
  parse: (webhook: RawWebhookV1) => ProviderEventV1 | null;
  /** Timestamps are checked against it. */
  clock: Clock;
  logger: Logger;
}

/**
 * The webhook endpoint as a route of the flow handler's table (decision 1511): verifies, de-duplicates, parses and
 * applies one webhook delivery, and answers it. Never throws: every failure is an answer (see
 * {@link WebhookResponseBody} and docs/webhooks.md). The request is read untouched: the signature covers the raw body.
 */
export type WebhookRoute = (request: RouteRequest) => Promise<RouteAnswer>;

/** How the webhook route is created: how its errors name the options, and whether a missing secret is refused at once. */
export interface WebhookRouteCreation {
  /** `webhooks` (the default) names `webhooks.secret`; `undefined` names `secret`. */
  readonly fieldPrefix?: string | undefined;
  /** Throw at creation when nothing authenticates webhooks (see `requireWebhookSecret`). Default false: refused per request. */
  readonly requireSecret?: boolean;
}

const webhookIdPattern = /^[\x21-\x7e]{1,256}$/;

/**
 * The webhook route on the given engine entry, parser, clock and logger (`createWebhookHandler` and
 * `createFlowHandler` build it on the engine; the tests on doubles). Checks the options at once (throwing an
 * `InvalidInputError` for a malformed secret or scheme).
 *
 * Order of work, so that nothing unverified reaches the engine: method, body (size-capped),
 * signature and timestamp, parse; then the engine's `receive` claims the delivery id, applies the
 * event (waiting at most `processingTimeoutMs`) and records the id as processed. What it answers is
 * mapped to an HTTP response here, nothing more.
 *
 */
export function webhookRouteWith(
  deps: WebhookRouteDeps,
  options: WebhookOptions = {},
  creation: WebhookRouteCreation = {},
): WebhookRoute {
  const resolved = resolveWebhookOptions(options, 'fieldPrefix' in creation ? creation.fieldPrefix : 'webhooks');
  if (creation.requireSecret === true) requireWebhookSecret(resolved);
  const verifier = verifierFor(resolved);
  const { logger } = deps;
  const receiveOptions: ReceiveOptions = {
    processingTimeoutMs: resolved.processingTimeoutMs,
    replayTtlMs: resolved.replayTtlMs,
  };
  const secretField = webhookOptionField(resolved.fieldPrefix, 'secret');
  // A misconfiguration is a warning once, with its fix; every later delivery it refuses is an info line, so
  // that whoever sends requests cannot fill the warnings.
  const warnOnce = onceEach(logger);
  if (verifier === undefined && resolved.allowUnsigned) {
    logger.warn('verikit.inbound.unsigned-accepted', {
      hint: 'webhooks are accepted without verification (allowUnsigned): anyone who can reach the endpoint can verify any USSD flow',
    });
  }

  async function verify(webhook: RawWebhookV1): Promise<Step<VerifiedWebhook>> {
    if (verifier === undefined) {
      if (resolved.allowUnsigned) return { ok: true, value: { id: unsignedIdOf(webhook) } };
      warnOnce('verikit.inbound.refused', 'verikit.inbound.unverified', {
        reason: 'no-secret',
        hint: `set ${secretField} to the signing secret from the provider dashboard (or opt out with webhooks.allowUnsigned)`,
      });
      return stop(unverified(new WebhookVerificationError('webhooks are refused: no webhook secret is configured')));
    }
    try {
      const verified = await verifier.verify({ ...webhook, now: deps.clock.now() });
      if (typeof verified?.id !== 'string' || !webhookIdPattern.test(verified.id)) {
        return stop(
          malformed(
            new InvalidInputError([{ field: 'webhook-id', message: 'must be 1 to 256 visible ASCII characters' }]),
          ),
        );
      }
      return { ok: true, value: { id: verified.id } };
    } catch (error) {
      const refusal = WebhookVerificationError.isInstance(error)
        ? error
        : new WebhookVerificationError('the webhook could not be verified');
      if (refusal.signatureMismatch) {
        warnOnce('verikit.inbound.signature-mismatch', 'verikit.inbound.unverified', {
          reason: refusal.message,
          hint: `a webhook's signature does not match ${secretField}: set it to the signing secret the provider shows for this endpoint (the whsec_ form for Standard Webhooks); USSD flows stay in awaiting-dial until it matches. Logged once; later mismatches are info lines`,
        });
      } else {
        logger.info('verikit.inbound.unverified', { reason: refusal.message });
      }
      return stop(unverified(refusal));
    }
  }

  function parse(webhook: RawWebhookV1, webhookId: string | undefined): Step<ProviderEventV1 | null> {
    try {
      return { ok: true, value: deps.parse(webhook) };
    } catch (error) {
      if (InvalidInputError.isInstance(error) || error instanceof SyntaxError) {
        const invalid = InvalidInputError.isInstance(error)
          ? error
          : new InvalidInputError([{ field: 'body', message: 'is not valid JSON' }]);
        logger.info('verikit.inbound.malformed', { webhookId, field: invalid.field });
        return stop(malformed(invalid));
      }
      logger.error('verikit.inbound.parse-failed', { webhookId, error: errorCode(error) });
      return stop({
        status: 'error',
        error: { code: 'webhook_parse_failed', message: 'the provider could not parse the webhook' },
      });
    }
  }

  async function handle(request: RouteRequest): Promise<RouteAnswer> {
    if (request.method !== 'POST') return webhookAnswer({ status: 'method-not-allowed' });
    const read = await readRouteBody(request, resolved.maxBodyBytes);
    if (!read.ok) {
      logger.info('verikit.inbound.malformed', { reason: read.reason });
      if (read.reason === 'too-large') {
        return webhookAnswer({
          status: 'too-large',
          error: { code: 'invalid_input', field: 'body', message: `must be at most ${resolved.maxBodyBytes} bytes` },
        });
      }
      const message =
        read.reason === 'not-utf8'
          ? 'must be UTF-8 text'
          : read.reason === 'already-read'
            ? alreadyReadMessage
            : 'could not be read';
      return webhookAnswer(malformed(new InvalidInputError([{ field: 'body', message }])));
    }
    const webhook: RawWebhookV1 = { body: read.body, headers: request.headers() };

    const verification = await verify(webhook);
    if (!verification.ok) return webhookAnswer(verification.response);
    const webhookId = verification.value.id;
    const loggedId = webhookId.startsWith(unsignedPrefix) ? undefined : webhookId;

    const parsed = parse(webhook, loggedId);
    if (!parsed.ok) return webhookAnswer(parsed.response);
    const event = parsed.value;
    if (event === null) {
      logger.info('verikit.inbound.ignored', { webhookId: loggedId, outcome: 'ignored' });
      return webhookAnswer({ status: 'ignored' });
    }
    const inbound: InboundEvent = {
      id: webhookId,
      event,
      ...(loggedId === undefined ? { idIsPrivate: true } : {}),
    };
    let result: ReceiveResult;
    try {
      result = await deps.receive(inbound, receiveOptions);
    } catch (error) {
      return webhookAnswer(failureOf(error));
    }
    const answer = answerOf(result);
    return webhookAnswer(answer.body, answer.retryAfterSeconds);
  }

  return async (request) => {
    try {
      return await handle(request);
    } catch (error) {
      const retryable = VerikitError.isInstance(error) && error.isRetryable;
      logger.error('verikit.inbound.failed', { error: errorCode(error), retryable });
      return webhookAnswer(
        retryable
          ? {
              status: 'retry',
              error: {
                code: errorCode(error),
                message: 'the webhook could not be processed now; deliver it again later',
              },
            }
          : { status: 'error', error: { code: errorCode(error), message: 'the webhook could not be processed' } },
      );
    }
  };
}

/** Logs `warning` at warn the first time, and at info as `after` every later time. */
function onceEach(logger: Logger): (warning: string, after: string, fields: Record<string, unknown>) => void {
  const warned = new Set<string>();
  return (warning, after, fields) => {
    if (warned.has(warning)) {
      logger.info(after, { reason: fields.reason });
      return;
    }
    warned.add(warning);
    logger.warn(warning, fields);
  };
}

function verifierFor(options: ResolvedWebhookOptions): WebhookVerifier | undefined {
  const { scheme, secret } = options;
  if (typeof scheme === 'object' && 'verify' in scheme) return scheme;
  if (secret === undefined) return undefined;
  const key = webhookKeyOf(secret, webhookOptionField(options.fieldPrefix, 'secret'));
  if (scheme === 'standard-webhooks')
    return createStandardWebhooksVerifier({ key, toleranceSeconds: options.toleranceSeconds });
  return createHmacHeaderVerifier({ ...scheme, key });
}

/** The result of one step of handling: go on with a value, or stop with a response. */
type Step<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly response: WebhookResponseBody };

function stop(response: WebhookResponseBody): { ok: false; response: WebhookResponseBody } {
  return { ok: false, response };
}

const unsignedPrefix = 'unsigned-';

/** Without a signature the sender's `webhook-id` is all we have; failing that, the body's hash. Neither is logged. */
function unsignedIdOf(webhook: RawWebhookV1): string {
  const id = webhook.headers['webhook-id'];
  const basis = id !== undefined && webhookIdPattern.test(id) ? `id:${id}` : `body:${webhook.body}`;
  return `${unsignedPrefix}${createHash('sha256').update(basis).digest('base64url').slice(0, 32)}`;
}

function unverified(error: WebhookVerificationError): WebhookResponseBody {
  return {
    status: 'unverified',
    error: { code: error.code, message: error.message, ...(error.field ? { field: error.field } : {}) },
  };
}
