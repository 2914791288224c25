/**
 * `pnpm --filter @verikit/example-signup start`: builds the page with Vite, then serves the signup
 * app on http://127.0.0.1:3000 (PORT, HOST), on the sandbox unless VERIKIT_PROVIDER says otherwise.
 */
import { defaultTestIdentities } from '@verikit/gateway/fake';
import { buildPage } from './build-page.js';
import { startSignupServer } from './start-server.js';

const pageDir = await buildPage();
const server = await startSignupServer({ pageDir, onError: (error) => console.error('signup server error:', error) });
const { sandbox } = server.setup;
console.log(`signup app on ${server.url} (provider: ${server.setup.name})`);
if (sandbox !== undefined) {
  const bvn = defaultTestIdentities.find((identity) => identity.idType === 'bvn')!;
  console.log(`sandbox on ${sandbox.url}:`);
  console.log(`  the code sent to a number:  curl '${sandbox.url}/__sandbox/outbox/last?to=%2B2348012345678'`);
  console.log(
    `  dial the USSD code:         curl -X POST ${sandbox.url}/__sandbox/ussd/dial -H 'content-type: application/json' -d '{"phoneNumber":"+2348012345678","otp":"<the OTP shown>"}'`,
  );
  console.log(`  a test BVN:                 ${bvn.number} (its code goes to ${bvn.phoneNumber})`);
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void server.close().then(() => process.exit(0)));
}
