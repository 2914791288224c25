/**
 * One app instance of the shared-circuit test, as its own Node process:
 * `node --import tsx --conditions=@verikit/source circuits-worker.fixtures.ts <settings as JSON>`.
 * A failover provider over two real HTTP services, its breakers shared through Redis; it runs the flows the parent
 * sends (all at once) and reports each circuit change and each warning.
 */
import { silentLogger, type Logger, type ProviderCallContextV1 } from '@verikit/provider';
import { withFailover } from '@verikit/provider-utils';
import { postingPhoneProvider, type WorkerCommand, type WorkerMessage } from './circuits.fixtures.js';
import { createRedisCircuits } from './redis-circuits.js';
import { createRedisClusterStore } from './redis-cluster-store.js';
import { createRedisStore } from './create-redis-store.js';

const settings = JSON.parse(process.argv[2]!) as {
  namespace: string;
  url?: string;
  clusterUrls?: string[];
  first: string;
  second: string;
  threshold: number;
  halfOpenAfterMs: number;
  timeoutMs: number;
};
const tell = (message: WorkerMessage) => process.send!(message);
const store = settings.clusterUrls
  ? createRedisClusterStore({ urls: settings.clusterUrls, namespace: settings.namespace })
  : createRedisStore({ url: settings.url!, namespace: settings.namespace });
await store.connect();
const shared = createRedisCircuits({ store });
const provider = withFailover(
  [
    postingPhoneProvider('first', settings.first, settings.timeoutMs),
    postingPhoneProvider('second', settings.second, settings.timeoutMs),
  ],
  { breaker: { threshold: settings.threshold, halfOpenAfterMs: settings.halfOpenAfterMs, shared } },
);
provider.circuits!.subscribe(({ member, state, origin }) => tell({ type: 'change', member, state, origin }));
await shared.subscribed('failover');
const logger: Logger = { ...silentLogger, warn: (message) => tell({ type: 'log', message }) };

process.on('message', async (command: WorkerCommand) => {
  if (command.type === 'exit') {
    await shared.close();
    await store.close();
    process.exit(0);
  }
  const results = await Promise.all(
    command.keys.map(async (key) => {
      const context: ProviderCallContextV1 = { signal: new AbortController().signal, idempotencyKey: key, logger };
      try {
        const { sentBy } = await provider.phone!.send({ phoneNumber: '+2348031230001', channel: 'sms' }, context);
        return { key, sentBy: sentBy! };
      } catch (error) {
        return { key, error: (error as { code?: string }).code ?? String(error) };
      }
    }),
  );
  tell({ type: 'done', results });
});
tell({ type: 'ready' });
