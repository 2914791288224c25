import { startExample } from './start-server.js';

const example = await startExample(Number(process.env.PORT ?? 3000));
console.log(`Better Auth + verikit example: ${example.url}`);
console.log(`The sandbox's outbox (the codes "sent"): ${example.sandbox.baseUrl}/__sandbox/outbox`);
process.on('SIGINT', () => void example.close().then(() => process.exit(0)));
