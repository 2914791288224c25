/**
 * One app instance of the shared route-counts tests, as its own Node process:
 * `node --import tsx --conditions=@verikit/source route-counts-worker.fixtures.ts <settings as JSON>`.
 * It runs `runRouteCountsHere` (route-counts-instance.fixtures.ts), reports which member sent each flow and its
 * router's table, and exits.
 */
import { runRouteCountsHere, type RouteCountsInstance } from './route-counts-instance.fixtures.js';

const settings = JSON.parse(process.argv[2]!) as RouteCountsInstance;
const run = await runRouteCountsHere(settings);
// Exit only once the report has gone out on the IPC channel.
await new Promise<void>((resolve, reject) =>
  process.send!(run, (error: Error | null) => (error ? reject(error) : resolve())),
);
process.exit(0);
