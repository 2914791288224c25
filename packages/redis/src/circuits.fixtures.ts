/**
 * Shared by the shared-circuit tests and their worker: a real local HTTP service that can be taken down (answers
 * 503, or reads requests and never answers) and brought back, and a provider that posts each call's idempotency key
 * to it over the shared HTTP client.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { ProviderV1 } from '@verikit/provider';
import { createHttpClient, statusError } from '@verikit/provider-utils';

export type ServiceMode = 'ok' | '5xx' | 'hang';

/** One request the service read: its idempotency key and how it was answered (`hang`: never, so maybe sent). */
interface ServiceRequest {
  readonly key: string;
  readonly answer: ServiceMode;
}

/** A real local server: 200, 503, or a request read and never answered. */
export async function startSwitchableService() {
  let mode: ServiceMode = 'ok';
  const received: ServiceRequest[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ key: (JSON.parse(body) as { idempotencyKey: string }).idempotencyKey, answer: mode });
      if (mode === 'hang') hanging.add(response);
      else response.writeHead(mode === 'ok' ? 200 : 503, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    received,
    set(next: ServiceMode) {
      mode = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of hanging) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A phone provider named `name` whose send posts the idempotency key to `url`, succeeding on a 2xx. */
export function postingPhoneProvider(name: string, url: string, timeout: number): ProviderV1 {
  const http = createHttpClient({ name, timeout, connectionRetries: 0, connectionRetryDelayMs: 0 });
  return {
    specificationVersion: 'v1',
    name,
    phone: {
      channels: ['sms'],
      async send(_input, context) {
        const body = JSON.stringify({ idempotencyKey: context.idempotencyKey });
        const answer = await http.send({ operation: 'send', url: `${url}/send`, path: '/send', body }, context);
        if (answer.status < 200 || answer.status > 299) throw statusError(`${name} send`, answer.status, undefined);
        return { requestId: context.idempotencyKey };
      },
      check: async () => ({ valid: true }),
    },
  };
}

/** What the parent asks a worker: run these flows at once, or stop. */
export type WorkerCommand = { readonly type: 'flows'; readonly keys: readonly string[] } | { readonly type: 'exit' };

/** What a worker tells the parent. */
export type WorkerMessage =
  | { readonly type: 'ready' }
  | { readonly type: 'change'; readonly member: string; readonly state: string; readonly origin: string }
  | { readonly type: 'log'; readonly message: string }
  | {
      readonly type: 'done';
      readonly results: ReadonlyArray<{ readonly key: string; readonly sentBy?: string; readonly error?: string }>;
    };
