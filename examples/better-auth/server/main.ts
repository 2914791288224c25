import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startExample } from './start-server.js';

// The example's .env (copied from .env.example), when there is one; what the environment already sets wins.
const envFile = fileURLToPath(new URL('../.env', import.meta.url));
if (existsSync(envFile)) process.loadEnvFile(envFile);

const example = await startExample(Number(process.env.PORT ?? 3000));
console.log(`Better Auth + verikit example: ${example.url}`);
console.log(`The sandbox's outbox (the codes "sent"): ${example.sandbox.baseUrl}/__sandbox/outbox`);
process.on('SIGINT', () => void example.close().then(() => process.exit(0)));
