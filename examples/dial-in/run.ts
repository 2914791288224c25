/**
 * `pnpm --filter @verikit/example-dial-in start`: serves the example on http://127.0.0.1:3030 (PORT). Open it,
 * type a number, then dial from "the phone" on the fake's inbox page (its Dial form), or with
 * `curl -X POST <fake>/__fake/ussd/dial -H 'content-type: application/json' -d '{"phoneNumber":"+234…","code":"*384*1234*…#"}'`.
 * A port in use prints one line naming it and exits 1; Ctrl-C closes the server and exits 0.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serveUntilStopped } from '@verikit/example-page-parts/serve-until-stopped';
import { startDialInExample } from './server.js';

// The example's .env (copied from .env.example), when there is one; what the environment already sets wins.
const envFile = fileURLToPath(new URL('.env', import.meta.url));
if (existsSync(envFile)) process.loadEnvFile(envFile);

const example = await serveUntilStopped('dial-in example', () => startDialInExample(Number(process.env.PORT ?? 3030)));
console.log(`dial-in example: ${example.url} (Africa's Talking fake: ${example.fake.url})`);
console.log(`dial as the phone on the fake's inbox: ${example.fake.inboxUrl}`);
