/**
 * `pnpm --filter @verikit/example-better-auth start`: serves the example on http://127.0.0.1:3000 (PORT). A port in use
 * prints one line naming it and exits 1; Ctrl-C closes the server and exits 0 (as the signup example, decision 0981).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startFailureMessage } from '../../signup/server/start-failure.js';
import { startExample, type ExampleServer } from './start-server.js';

// The example's .env (copied from .env.example), when there is one; what the environment already sets wins.
const envFile = fileURLToPath(new URL('../.env', import.meta.url));
if (existsSync(envFile)) process.loadEnvFile(envFile);

let example: ExampleServer | undefined;
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  if (example === undefined) process.exit(0);
  void example.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

try {
  example = await startExample(Number(process.env.PORT ?? 3000));
} catch (error) {
  console.error(`better-auth example: ${startFailureMessage(error)}`);
  process.exit(1);
}
console.log(`Better Auth + verikit example: ${example.url}`);
console.log(`The sandbox's outbox (the codes "sent"): ${example.sandbox.baseUrl}/__sandbox/outbox`);
