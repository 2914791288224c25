import type { ProviderV1 } from '@verikit/provider';
import { createHttpClient } from './http-client.js';
import { statusError } from './status-error.js';

/**
 * A minimal HTTP provider on the shared client, with every capability: each call posts its
 * idempotency key (`{"idempotencyKey": …}`) to `url` and succeeds on a 2xx. For failover tests that need real network failures (a refused connection, a
 * silent server) in front of another provider.
 */
export function createPostingProvider(name: string, url: string, timeout = 2000): ProviderV1 {
  const http = createHttpClient({ name, timeout, connectionRetries: 0, connectionRetryDelayMs: 0 });
  const post = async (operation: string, context: Parameters<NonNullable<ProviderV1['sms']>['send']>[1]) => {
    const answer = await http.send(
      {
        operation,
        url: `${url}/${operation}`,
        path: `/${operation}`,
        body: JSON.stringify({ idempotencyKey: context.idempotencyKey }),
      },
      context,
    );
    if (answer.status < 200 || answer.status > 299) throw statusError(`${name} ${operation}`, answer.status, undefined);
  };
  const postThen = async <T>(operation: string, context: Parameters<typeof post>[1], result: T): Promise<T> => {
    await post(operation, context);
    return result;
  };
  return {
    specificationVersion: 'v1',
    name,
    ussd: { initiate: async (_input, context) => postThen('ussd', context, { otp: '1234', ussdCode: '*1#' }) },
    phone: {
      channels: ['sms', 'voice'],
      send: async (_input, context) => postThen('phone', context, { requestId: 'posted' }),
      check: async (_input, context) => postThen('check', context, { valid: true }),
    },
    identity: { types: ['bvn', 'nin'], sendOtp: async (_input, context) => void (await post('identity', context)) },
    sms: { send: async (_input, context) => postThen('sms', context, {}) },
    whatsapp: { send: async (_input, context) => postThen('whatsapp', context, {}) },
  };
}
