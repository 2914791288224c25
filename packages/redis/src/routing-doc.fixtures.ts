// snippet:start
import { createLearningRouter, formatRouteTable, withFailover } from '@verikit/provider-utils';
import { createRedisRouteCounts, createRedisStore } from '@verikit/redis';
import { createTermiiProvider } from '@verikit/termii';
import { createTwilioProvider } from '@verikit/twilio';

const store = createRedisStore({ url: process.env.REDIS_URL });
const router = createLearningRouter({
  counts: createRedisRouteCounts({ store }),
  // Each operator's prefixes learn together (the numbering plan; a ported number is routed by its prefix).
  operators: { MTN: ['+234803', '+234806'], Airtel: ['+234802', '+234808'], Glo: ['+234805', '+234807'] },
  pins: [
    { prefix: '+234805', use: ['termii'] }, // Glo numbers: Termii only, in every case
    { channel: 'voice', never: ['twilio'] }, // no code calls through Twilio
  ],
});
// The hand-written order is the prior: Termii starts ahead, then each flow goes where people verify.
export const provider = withFailover([createTermiiProvider(), createTwilioProvider()], { router });

// What the router believes, route by route.
console.log(formatRouteTable(await router.table()));
// snippet:end
await store.close();
