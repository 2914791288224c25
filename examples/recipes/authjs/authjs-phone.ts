/**
 * Auth.js (`@auth/core`) with verikit's phone proofs, as a recipe (docs/integrations/authjs.md): sign in by a verified
 * phone, and link or change the phone of a signed-in user. The phone is an Auth.js account of the `verikit-phone`
 * provider whose `providerAccountId` is the E.164 number, so the adapter's own `getUserByAccount` finds its user and
 * one number is on one account; the user record keeps it as `phoneNumber` too.
 */
import { randomUUID } from 'node:crypto';
import type { Adapter, AdapterAccount, AdapterUser } from '@auth/core/adapters';
import Credentials from '@auth/core/providers/credentials';
import { ProofRejectedError, type VerificationMethod, type Verikit } from '@verikit/core';

/** The Auth.js account provider a verified phone is linked under. */
const phoneAccountProvider = 'verikit-phone';

/** A user as this recipe keeps it: Auth.js's user with the verified number. */
type UserWithPhone = AdapterUser & { phoneNumber?: string | null };

const phoneAccount = (userId: string, phoneNumber: string): AdapterAccount =>
  // Auth.js names OAuth, OIDC, email and WebAuthn account types; a phone is none of them, and the adapters keep it as given.
  ({
    userId,
    type: 'credentials',
    provider: phoneAccountProvider,
    providerAccountId: phoneNumber,
  }) as unknown as AdapterAccount;

/** The user a verified number is linked to, or null. */
function userOfPhone(adapter: Adapter, phoneNumber: string) {
  return adapter.getUserByAccount!({ provider: phoneAccountProvider, providerAccountId: phoneNumber });
}

/**
 * The Credentials provider `phone-proof`: `{ phoneNumber, proof }` signs in the user whose phone it is, or a new
 * phone-only user. The proof is redeemed once, for that number, by the methods verikit accepts by default (or
 * `options.methods`): a "who is this" dial-in proof signs no one in unless `methods` names `dial-in-identify`. A
 * refused proof is Auth.js's `CredentialsSignin`.
 */
export function phoneProofProvider(
  verikit: Verikit,
  adapter: Adapter,
  options: { methods?: readonly VerificationMethod[] } = {},
) {
  return Credentials({
    id: 'phone-proof',
    name: 'Phone',
    credentials: { phoneNumber: {}, proof: {} },
    async authorize(credentials) {
      const { phoneNumber, proof } = credentials as { phoneNumber?: unknown; proof?: unknown };
      if (typeof phoneNumber !== 'string' || typeof proof !== 'string') return null;
      const redeemOptions = options.methods === undefined ? undefined : { methods: options.methods };
      const verification = await verikit.redeemProof(proof, { phoneNumber }, redeemOptions).catch((error: unknown) => {
        if (ProofRejectedError.isInstance(error)) return undefined;
        throw error;
      });
      if (verification === undefined) return null;
      const verified = verification.phoneNumber!;
      const user = await userOfPhone(adapter, verified);
      if (user !== null) return user;
      const created = await adapter.createUser!({
        id: randomUUID(),
        email: `phone-${randomUUID()}@phone.invalid`,
        emailVerified: null,
        phoneNumber: verified,
      } as UserWithPhone);
      await adapter.linkAccount!(phoneAccount(created.id, verified));
      return created;
    },
  });
}

/** The number is on another account: no takeover, no second account. */
export class PhoneNumberTakenError extends Error {
  readonly code = 'PHONE_NUMBER_TAKEN';
  constructor() {
    super('This phone number is already on another account');
    this.name = 'PhoneNumberTakenError';
  }
}

/**
 * Links a verified phone to a signed-in user (from your own route, after Auth.js's session named the user), or
 * changes it: the old number is unlinked and told by SMS once (`notifyOldNumber`, sent with the proof's flow as its
 * idempotency key; a failure is left to `onNotifyFailed`, since the old number may no longer work). A proof that is
 * refused throws verikit's `ProofRejectedError`; a number on another account, {@link PhoneNumberTakenError}, also
 * when another user links it at the same moment and the adapter's unique account key (a SQL adapter's) refuses ours.
 */
export async function linkPhone(
  verikit: Verikit,
  adapter: Adapter,
  request: {
    userId: string;
    phoneNumber: string;
    proof: string;
    notifyOldNumber?: { message: string; from?: string } | false;
    onNotifyFailed?: (error: unknown) => void;
  },
): Promise<{ phoneNumber: string; previousPhoneNumber: string | null }> {
  const verification = await verikit.redeemProof(request.proof, { phoneNumber: request.phoneNumber });
  const verified = verification.phoneNumber!;
  const holder = await userOfPhone(adapter, verified);
  if (holder !== null && holder.id !== request.userId) throw new PhoneNumberTakenError();
  const user = (await adapter.getUser!(request.userId)) as UserWithPhone | null;
  if (user === null) throw new Error('no such user');
  const previousPhoneNumber = user.phoneNumber ?? null;
  if (holder === null) {
    try {
      await adapter.linkAccount!(phoneAccount(user.id, verified));
    } catch (error) {
      // Another user linked the number since the check: a SQL adapter's unique account key refused this link.
      const linkedMeanwhile = await userOfPhone(adapter, verified);
      if (linkedMeanwhile !== null && linkedMeanwhile.id !== user.id) throw new PhoneNumberTakenError();
      throw error;
    }
  }
  await adapter.updateUser!({ id: user.id, phoneNumber: verified } as UserWithPhone);
  if (previousPhoneNumber !== null && previousPhoneNumber !== verified) {
    await adapter.unlinkAccount!({ provider: phoneAccountProvider, providerAccountId: previousPhoneNumber });
    if (request.notifyOldNumber !== false && request.notifyOldNumber !== undefined) {
      const { message, from } = request.notifyOldNumber;
      await verikit
        .sendSms(
          { to: previousPhoneNumber, message, ...(from === undefined ? {} : { from }) },
          { idempotencyKey: `phone-change:${verification.flowId}` },
        )
        .catch((error: unknown) => request.onNotifyFailed?.(error));
    }
  }
  return { phoneNumber: verified, previousPhoneNumber };
}
