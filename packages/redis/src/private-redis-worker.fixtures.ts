/**
 * Starts a private redis-server, tells its URL to the parent and, when told to, throws without disposing of it: the
 * crash `private-redis.test.ts` checks the server does not outlive.
 */
import { PrivateRedis } from './redis-test-env.fixtures.js';

const redis = await PrivateRedis.start();
process.once('message', () => {
  throw new Error('a crash before dispose()');
});
process.send?.(redis.url);
