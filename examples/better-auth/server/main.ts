/**
 * `pnpm --filter @verikit/example-better-auth start`: serves the example on http://127.0.0.1:3000 (PORT). A port in use
 * prints one line naming it and exits 1; Ctrl-C closes the server and exits 0 (as the signup example, decision 0981).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serveUntilStopped } from '@verikit/example-page-parts/serve-until-stopped';
import { startExample } from './start-server.js';

// The example's .env (copied from .env.example), when there is one; what the environment already sets wins.
const envFile = fileURLToPath(new URL('../.env', import.meta.url));
if (existsSync(envFile)) process.loadEnvFile(envFile);

const example = await serveUntilStopped('better-auth example', () => startExample(Number(process.env.PORT ?? 3000)));
console.log(`Better Auth + verikit example: ${example.url}`);
console.log(`The sandbox's outbox (the codes "sent"): ${example.sandbox.baseUrl}/__sandbox/outbox`);
