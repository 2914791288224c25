/**
 * The Better Auth client plugin of `@verikit/better-auth`: `authClient.signIn.phoneProof({ phoneNumber, proof })`
 * and `authClient.identity.attachProof({ idType, number, proof })`, typed from the server plugin. The flow itself
 * (start, code, resend, proof) runs on `@verikit/client` at the plugin's flow routes (`/api/auth/verikit`).
 *
 * @module
 */
import type { BetterAuthClientPlugin } from 'better-auth/client';
import type { verikitAuth } from './verikit-auth.js';

/**
 * The client plugin: gives the auth client the plugin's endpoints, and refreshes the session after a sign-in by
 * phone.
 *
 * @example
 * const authClient = createAuthClient({ plugins: [verikitAuthClient()] });
 * await authClient.signIn.phoneProof({ phoneNumber, proof: (await flows.proof(flowId)).token });
 */
export function verikitAuthClient() {
  return {
    id: 'verikit',
    $InferServerPlugin: {} as ReturnType<typeof verikitAuth>,
    atomListeners: [
      {
        /** A sign-in by phone changes the session: the client's session atom reads it again. */
        matcher: (path: string) => path === '/sign-in/phone-proof',
        signal: '$sessionSignal',
      },
    ],
  } satisfies BetterAuthClientPlugin;
}
