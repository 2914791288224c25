/**
 * `pnpm --filter @verikit/example-signup start`: builds the page with Vite, then serves the signup
 * app on http://127.0.0.1:3000 (PORT, HOST), on the sandbox unless VERIKIT_PROVIDER says otherwise.
 *
 * A start that fails (a port in use, a malformed setting) prints one line and exits 1. Ctrl-C closes the
 * server and exits 0: the handlers stay in place while it closes, since a terminal's Ctrl-C reaches every
 * process of the group and pnpm passes it on too; a second signal must not end the process "by signal", which
 * pnpm reports as a failed run (decision 0800 for the CLI, 0981 here).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildPage } from './build-page.js';
import { serveUntilStopped } from '@verikit/example-page-parts/serve-until-stopped';
import { startSignupServer } from './start-server.js';

// The example's .env (copied from .env.example), when there is one; what the environment already sets wins.
const envFile = fileURLToPath(new URL('../.env', import.meta.url));
if (existsSync(envFile)) process.loadEnvFile(envFile);

const server = await serveUntilStopped('signup', async () => {
  const pageDir = await buildPage();
  return startSignupServer({ pageDir, onError: (error) => console.error('signup server error:', error) });
});
const { sandbox } = server.setup;
console.log(`signup app on ${server.url} (provider: ${server.setup.name})`);
if (sandbox !== undefined) {
  console.log(`sandbox on ${sandbox.url}:`);
  console.log(`  its inbox, in a browser:    ${sandbox.inboxUrl} (the codes sent, a button to dial USSD codes)`);
  console.log(`  the code sent to a number:  curl '${sandbox.url}/__sandbox/outbox/last?to=%2B2348012345678'`);
  console.log(
    `  dial the USSD code:         curl -X POST ${sandbox.url}/__sandbox/ussd/dial -H 'content-type: application/json' -d '{"phoneNumber":"+2348012345678","otp":"<the OTP shown>"}'`,
  );
  // No identity number in a log, not even a fixture's: the page lists them.
  console.log('  the test BVNs and NINs:     docs/sandbox.md, "Test identities"');
}
