/**
 * `pnpm --filter @verikit/example-dial-in start`: serves the example on http://127.0.0.1:3030. Open it, type a
 * number, then dial from "the phone" with the fake:
 * `curl -X POST <fake>/__fake/ussd/dial -H 'content-type: application/json' -d '{"phoneNumber":"+234…","code":"*384*1234*…#"}'`.
 */
import { startDialInExample } from './server.js';

const example = await startDialInExample(Number(process.env.PORT ?? 3030));
console.log(`dial-in example: ${example.url} (Africa's Talking fake: ${example.fake.url})`);
