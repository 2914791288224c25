import { afterEach, describe, expect, it } from 'vitest';
import {
  ConflictError,
  EventNotAllowedError,
  FlowNotFoundError,
  FlowNotVerifiedError,
  ProofRejectedError,
  RecordSchemaError,
  StoreError,
  UsageError,
} from '@verikit/core';
import {
  CapabilityError,
  InvalidInputError,
  ProviderAuthenticationError,
  ProviderProtocolError,
  ProviderRejectedError,
  ProviderUnavailableError,
  RateLimitedError,
  VerikitError,
} from '@verikit/provider';
import { errorResponse } from '../error-response.js';
import { errorOf, phoneNumber, postJson, setupHttp, type HttpSetup } from '../http.fixtures.js';
import { WebhookVerificationError } from '../webhooks/webhook-verification-error.js';
import { ForbiddenError } from './forbidden-error.js';
import { httpStatusOf } from './http-status.js';
import { MethodNotAllowedError } from './method-not-allowed-error.js';
import { PayloadTooLargeError } from './payload-too-large-error.js';
import { RouteNotFoundError } from './route-not-found-error.js';
import { UnsupportedMediaTypeError } from './unsupported-media-type-error.js';

let setup: HttpSetup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

// The HTTP status of each error, asserted here since the errors no longer carry one. The engine's
// tests asserted `statusCode` 400 (InvalidInputError), 404 (FlowNotFoundError), 409
// (EventNotAllowedError), 422 (CapabilityError), 502 (ProviderRejectedError) and 503 (StoreError, also
// in the redis outage tests): those assertions moved to this table and to the answers below.
const cases: ReadonlyArray<[VerikitError, number]> = [
  [new InvalidInputError([{ field: 'phoneNumber', message: 'must be E.164' }]), 400],
  [new WebhookVerificationError('forged'), 401],
  [new ForbiddenError(), 403],
  [new ProofRejectedError('used'), 403],
  [new FlowNotFoundError('AAAAAAAAAAAAAAAAAAAAAA'), 404],
  [new RouteNotFoundError(), 404],
  [new MethodNotAllowedError(['GET']), 405],
  [new ConflictError(), 409],
  [new EventNotAllowedError('resend', 'verified', []), 409],
  [new FlowNotVerifiedError('AAAAAAAAAAAAAAAAAAAAAA', 'awaiting-code'), 409],
  [new PayloadTooLargeError(64), 413],
  [new UnsupportedMediaTypeError(), 415],
  [new CapabilityError('sms', 'test'), 422],
  [new RateLimitedError('slow down', Date.now() + 60_000), 429],
  [new RecordSchemaError('bad record'), 500],
  [new UsageError('call subscribe first'), 500],
  [new ProviderAuthenticationError(), 502],
  [new ProviderProtocolError('unreadable answer'), 502],
  [new ProviderRejectedError('refused'), 502],
  [new ProviderUnavailableError('down'), 503],
  [new StoreError(), 503],
];

describe('httpStatusOf: one mapping from error code to HTTP status', () => {
  it.each(cases.map(([error, status]) => [error.code, error, status] as const))(
    '%s is answered %i',
    (_code, error, status) => {
      expect(httpStatusOf(error)).toBe(status);
      const response = errorResponse(error);
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    },
  );

  it('an unknown code, a code named like an Object property, and anything not a verikit error are 500', () => {
    for (const error of [
      new VerikitError('brand_new_code', 'new'),
      new VerikitError('constructor', 'x'),
      new VerikitError('__proto__', 'x'),
      new Error('plain'),
      'a string',
      undefined,
    ]) {
      expect(httpStatusOf(error)).toBe(500);
      expect(errorResponse(error).status).toBe(500);
    }
  });

  it('an error answer carries a stable messageId; a code this release does not list gets verikit.error.unknown', async () => {
    const body = (await errorResponse(new VerikitError('carrier_blocked', 'blocked')).json()) as {
      error: { messageId: string };
    };
    expect(body.error.messageId).toBe('verikit.error.unknown');
    const rejected = (await errorResponse(new ProofRejectedError('expired')).json()) as {
      error: Record<string, unknown>;
    };
    expect(rejected.error).toEqual({
      name: 'ProofRejectedError',
      code: 'proof_rejected',
      message: 'the proof has expired',
      messageId: 'verikit.error.proof_rejected',
      field: 'token',
      isRetryable: false,
      reason: 'expired',
    });
  });

  it('the errors carry no HTTP status of their own', () => {
    for (const [error] of cases) expect(Object.keys(error)).not.toContain('statusCode');
  });
});

describe('the flow handler answers the mapped status for a typed error from anywhere in a request', () => {
  it('every error of the table, thrown by the authorize hook (which may call a provider), gets its status and changes nothing', async () => {
    let next: VerikitError | undefined;
    setup = await setupHttp({
      authorize: () => {
        if (next !== undefined) throw next;
        return true;
      },
    });
    for (const [error, status] of cases) {
      next = error;
      const response = await postJson(`${setup.url}/flows`, { kind: 'phone', phoneNumber });
      expect(response.status, error.code).toBe(status);
      expect(await errorOf(response)).toMatchObject({ code: error.code, messageId: `verikit.error.${error.code}` });
    }
    expect(await setup.snapshot()).toBe('[]');
    expect(setup.provider.calls).toHaveLength(0);
  });
});
