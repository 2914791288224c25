import type { BetterAuthOptions, BetterAuthPlugin } from 'better-auth';
import { APIError, createAuthEndpoint, getIP, sessionMiddleware } from 'better-auth/api';
import { setSessionCookie } from 'better-auth/cookies';
import { z } from 'zod';
import {
  defaultProofMethods,
  InvalidInputError,
  ProofRejectedError,
  VerikitError,
  type ProofClaim,
  type Verification,
} from '@verikit/core';
import { createFlowHandler, type FlowAuthorizer, type FlowHandler } from '@verikit/http';
import { VERIKIT_ERROR_CODES } from './error-codes.js';
import { withDrainedBody } from './drained-body.js';
import { peerAddress } from './peer-address.js';
import type { IdentityVerificationRecord, UserWithPhoneNumber } from './records.js';
import { verikitSchema } from './schema.js';
import type { VerikitAuthOptions } from './verikit-auth-options.js';

const signInBody = z.object({
  phoneNumber: z.string().max(32),
  proof: z.string().max(2200),
  rememberMe: z.boolean().optional(),
});

const linkBody = z.object({
  phoneNumber: z.string().max(32),
  proof: z.string().max(2200),
});

/** What the old number is told by default when a user replaces it: no number, no name. */
const defaultOldNumberNotice =
  'The phone number on your account was changed. If you did not do this, contact support at once.';

const attachBody = z.object({
  idType: z.enum(['bvn', 'nin']),
  number: z.string().max(32),
  proof: z.string().max(2200),
});

/** An identity number as verikit's views show it: all but the last four digits hidden. */
function maskIdentityNumber(number: string): string {
  return `${'*'.repeat(Math.max(0, number.length - 4))}${number.slice(-4)}`;
}

/** A verikit error as Better Auth's client reads it: a status, a code and a message, never a number or a token. */
function toApiError(error: unknown): never {
  if (ProofRejectedError.isInstance(error)) {
    throw new APIError('FORBIDDEN', {
      ...VERIKIT_ERROR_CODES.PROOF_REJECTED,
      reason: error.reason,
    });
  }
  if (InvalidInputError.isInstance(error)) {
    // The field as the request named it: the claim's fields are the body's, the token is `proof`.
    const field = error.field === 'token' ? 'proof' : error.field?.replace(/^claim\./, '');
    throw new APIError('BAD_REQUEST', { code: VERIKIT_ERROR_CODES.INVALID_INPUT.code, message: error.message, field });
  }
  if (VerikitError.isInstance(error) && error.isRetryable) {
    throw new APIError('SERVICE_UNAVAILABLE', {
      ...VERIKIT_ERROR_CODES.VERIFICATION_UNAVAILABLE,
    });
  }
  throw error;
}

/** Redeems a proof once for its claim, of a method the app accepts, or throws the APIError that says why not. */
async function redeem(options: VerikitAuthOptions, token: string, claim: ProofClaim) {
  try {
    return await options.verikit.redeemProof(token, claim, { methods: options.proofMethods ?? defaultProofMethods });
  } catch (error) {
    return toApiError(error);
  }
}

/**
 * The client address the flow routes count sends against, read the way Better Auth's `advanced.ipAddress` says:
 * none with `disableIpTracking`; from the headers it names in `ipAddressHeaders` (set by the app's proxy); else the
 * connection's own address when `toNodeHandler` of `@verikit/better-auth/node` serves the request. Never from
 * `X-Forwarded-For` by default: any client can write it (Better Auth's own default reads it).
 */
function clientAddressOf(request: Request, authOptions: BetterAuthOptions): string | undefined {
  const ipAddress = authOptions.advanced?.ipAddress;
  if (ipAddress?.disableIpTracking === true) return undefined;
  const fromHeaders = ipAddress?.ipAddressHeaders === undefined ? null : getIP(request, authOptions);
  return fromHeaders ?? peerAddress();
}

/**
 * The app's `authorize`, after the plugin's own rules: no start whose proof could not sign in, so an anonymous client
 * cannot start one. A "who is this" dial-in (a `dial-in` without a number) unless `proofMethods` names
 * `dial-in-identify`; a phone plan with an `sms-inbound` step unless it names `sms-inbound` (decision 1800).
 */
function authorizeOf(options: VerikitAuthOptions): FlowAuthorizer | undefined {
  const appAuthorize = options.flowHandler?.authorize;
  const methods = options.proofMethods ?? defaultProofMethods;
  const identify = methods.includes('dial-in-identify');
  const smsInbound = methods.includes('sms-inbound');
  if (identify && smsInbound) return appAuthorize;
  return (request, flow, action) => {
    if (action === 'start' && 'kind' in flow) {
      if (!identify && flow.kind === 'dial-in' && flow.phoneNumber === undefined) return false;
      if (!smsInbound && flow.kind === 'phone' && 'channels' in flow) {
        // At a start, `channels` is the plan as asked for, inbound steps included.
        const plan: readonly string[] | undefined = flow.channels;
        if (plan?.includes('sms-inbound') === true) return false;
      }
    }
    return appAuthorize === undefined ? true : appAuthorize(request, flow, action);
  };
}

/** The random, undeliverable address a phone user gets when the app gives no `temporaryEmail`. */
function defaultTemporaryEmail(): string {
  return `phone-${crypto.randomUUID()}@phone.invalid`;
}

/**
 * The Better Auth plugin: users sign up and in by phone through verikit flows and proofs, on any verikit
 * provider, and attach a verified BVN/NIN. It serves verikit's flow routes below the auth base path
 * (`/api/auth/verikit/flows`, for `@verikit/client` or `@verikit/react`), and two endpoints:
 *
 * - `POST /sign-in/phone-proof` `{ phoneNumber, proof }`: redeems the proof once, for that number, then finds
 *   the user with that number or creates one, and starts a session.
 * - `POST /phone-number/link-proof` `{ phoneNumber, proof }` (signed in): redeems the proof once and sets the number
 *   on the signed-in user's account (linking one, or changing it: the old number is told by SMS), refused with 409
 *   `PHONE_NUMBER_TAKEN` when another account has it. The user then signs in by phone too.
 * - `POST /identity/attach-proof` `{ idType, number, proof }` (signed in): redeems a BVN/NIN proof once and
 *   keeps its masked number and keyed hash for the user; one number belongs to one account.
 *
 * @example
 * const auth = betterAuth({ database, plugins: [verikitAuth({ verikit })] });
 */
export function verikitAuth(options: VerikitAuthOptions) {
  const flowPath = options.flowPath ?? '/verikit';
  const allowSignUp = options.signUp !== false;
  const temporaryEmail = options.signUp === false ? undefined : options.signUp?.temporaryEmail;
  let handler: FlowHandler | undefined;
  let handlerBase = '';

  return {
    id: 'verikit',
    schema: verikitSchema,
    /** Creates the flow handler below the auth base path, once Better Auth knows its base URL. */
    init(ctx) {
      handlerBase = `${new URL(ctx.baseURL || 'http://localhost/api/auth').pathname.replace(/\/+$/, '')}${flowPath}`;
      const authorize = authorizeOf(options);
      handler = createFlowHandler({
        ...options.flowHandler,
        ...(authorize === undefined ? {} : { authorize }),
        verikit: options.verikit,
        basePath: handlerBase,
      });
    },
    /** Answers the flow routes with verikit's flow handler; every other request goes on to Better Auth. */
    async onRequest(request, ctx) {
      const { pathname } = new URL(request.url);
      if (handler === undefined || !(pathname === handlerBase || pathname.startsWith(`${handlerBase}/`))) return;
      const clientAddress = clientAddressOf(request, ctx.options);
      const env = clientAddress === undefined ? undefined : { clientAddress };
      return { response: await handler(withDrainedBody(request), env) };
    },
    endpoints: {
      signInPhoneProof: createAuthEndpoint(
        '/sign-in/phone-proof',
        { method: 'POST', body: signInBody },
        async (ctx) => {
          const { phoneNumber, proof, rememberMe } = ctx.body;
          const verification = await redeem(options, proof, { phoneNumber });
          const verified = verification.phoneNumber!;
          const { adapter, internalAdapter } = ctx.context;
          const where = [{ field: 'phoneNumber', value: verified }];
          let user = await adapter.findOne<UserWithPhoneNumber>({ model: 'user', where });
          let isNewUser = false;
          if (user === null) {
            if (!allowSignUp) {
              throw new APIError('FORBIDDEN', {
                ...VERIKIT_ERROR_CODES.SIGN_UP_DISABLED,
              });
            }
            user = await internalAdapter
              .createUser<UserWithPhoneNumber>(
                {
                  email: temporaryEmail?.(verified) ?? defaultTemporaryEmail(),
                  name: options.signUp === false ? verified : (options.signUp?.name?.(verified) ?? ''),
                  phoneNumber: verified,
                  phoneNumberVerified: true,
                },
                ctx,
              )
              .then((created) => {
                isNewUser = true;
                return created;
              })
              // Two first sign-ins of one number racing: the unique number lets one create, the other finds it.
              .catch(async (error: unknown) => {
                const found = await adapter.findOne<UserWithPhoneNumber>({ model: 'user', where });
                if (found === null) throw error;
                return found;
              });
          } else if (!user.phoneNumberVerified) {
            user =
              (await internalAdapter.updateUser<UserWithPhoneNumber>(user.id, { phoneNumberVerified: true })) ?? user;
          }
          const session = await internalAdapter.createSession(user.id, rememberMe === false);
          await setSessionCookie(ctx, { session, user }, rememberMe === false);
          await options.onSignIn?.({ user, verification, isNewUser });
          return ctx.json({ token: session.token, user: { id: user.id, phoneNumber: user.phoneNumber } });
        },
      ),
      linkPhoneProof: createAuthEndpoint(
        '/phone-number/link-proof',
        {
          method: 'POST',
          body: linkBody,
          /** Signed-in users only: a 401 otherwise. */
          use: [sessionMiddleware],
        },
        async (ctx) => {
          const { phoneNumber, proof } = ctx.body;
          const current = ctx.context.session;
          const userId = current.user.id;
          const verification = await redeem(options, proof, { phoneNumber });
          const verified = verification.phoneNumber!;
          const { adapter, internalAdapter } = ctx.context;
          const taken = () =>
            new APIError('CONFLICT', {
              ...VERIKIT_ERROR_CODES.PHONE_NUMBER_TAKEN,
            });
          const holder = await adapter.findOne<UserWithPhoneNumber>({
            model: 'user',
            where: [{ field: 'phoneNumber', value: verified }],
          });
          if (holder !== null && holder.id !== userId) throw taken();
          const before = await adapter.findOne<UserWithPhoneNumber>({
            model: 'user',
            where: [{ field: 'id', value: userId }],
          });
          const previousPhoneNumber = before?.phoneNumber ?? null;
          // The number is unique: of two accounts linking it at once, the second write fails and is told so.
          const user = await internalAdapter
            .updateUser<UserWithPhoneNumber>(userId, { phoneNumber: verified, phoneNumberVerified: true })
            .catch(async (error: unknown) => {
              const now = await adapter.findOne<UserWithPhoneNumber>({
                model: 'user',
                where: [{ field: 'phoneNumber', value: verified }],
              });
              throw now !== null && now.id !== userId ? taken() : error;
            });
          const changed = previousPhoneNumber !== null && previousPhoneNumber !== verified;
          if (changed) {
            const change = options.phoneNumberChange;
            if (change?.revokeOtherSessions === true) {
              const others = (await internalAdapter.listSessions(userId)).filter(
                (session) => session.token !== current.session.token,
              );
              await Promise.all(others.map((session) => internalAdapter.deleteSession(session.token)));
            }
            if (change?.notifyOldNumber !== false) {
              // Once per change, however often this request is retried: the proof's flow names the change.
              await options.verikit
                .sendSms(
                  {
                    to: previousPhoneNumber,
                    message: change?.notifyOldNumber?.message ?? defaultOldNumberNotice,
                    ...(change?.notifyOldNumber?.from === undefined ? {} : { from: change.notifyOldNumber.from }),
                  },
                  { idempotencyKey: `verikit-phone-change:${verification.flowId}` },
                )
                .catch((error: unknown) =>
                  ctx.context.logger.warn('verikit: the old phone number could not be told of the change', {
                    code: VerikitError.isInstance(error) ? error.code : 'unknown',
                    field: VerikitError.isInstance(error) ? error.field : undefined,
                  }),
                );
            }
          }
          const linked = user ?? { ...before!, phoneNumber: verified, phoneNumberVerified: true };
          await options.onPhoneNumberLinked?.({ user: linked, previousPhoneNumber, verification });
          return ctx.json({ user: { id: userId, phoneNumber: verified }, changed });
        },
      ),
      attachIdentityProof: createAuthEndpoint(
        '/identity/attach-proof',
        {
          method: 'POST',
          body: attachBody,
          /** Signed-in users only: a 401 otherwise. */
          use: [sessionMiddleware],
        },
        async (ctx) => {
          const { idType, number, proof } = ctx.body;
          const userId = ctx.context.session.user.id;
          const verification: Verification = await redeem(options, proof, { idType, number });
          const { adapter } = ctx.context;
          const model = 'identityVerification';
          const sameNumber = await adapter.findOne<IdentityVerificationRecord>({
            model,
            where: [{ field: 'numberHash', value: verification.numberHash! }],
          });
          if (sameNumber !== null && sameNumber.userId !== userId) {
            throw new APIError('CONFLICT', {
              ...VERIKIT_ERROR_CODES.IDENTITY_ALREADY_ATTACHED,
            });
          }
          const ofType = await adapter.findOne<IdentityVerificationRecord>({
            model,
            where: [
              { field: 'userId', value: userId },
              { field: 'idType', value: idType },
            ],
          });
          if (ofType !== null && ofType.numberHash !== verification.numberHash) {
            throw new APIError('CONFLICT', {
              ...VERIKIT_ERROR_CODES.ANOTHER_IDENTITY_ATTACHED,
            });
          }
          const data = {
            userId,
            idType,
            numberMasked: maskIdentityNumber(number),
            numberHash: verification.numberHash!,
            provider: verification.provider,
            verifiedAt: new Date(verification.verifiedAt),
          };
          const record =
            ofType === null
              ? await adapter.create<typeof data, IdentityVerificationRecord>({ model, data })
              : ((await adapter.update<IdentityVerificationRecord>({
                  model,
                  where: [{ field: 'id', value: ofType.id }],
                  update: { verifiedAt: data.verifiedAt, provider: data.provider },
                })) ?? ofType);
          return ctx.json({
            identity: { idType: record.idType, number: record.numberMasked, verifiedAt: record.verifiedAt },
          });
        },
      ),
    },
    rateLimit: [
      {
        /** The plugin's two endpoints, 10 a minute per client when Better Auth's rate limiter is on. */
        pathMatcher: (path: string) =>
          path === '/sign-in/phone-proof' || path === '/phone-number/link-proof' || path === '/identity/attach-proof',
        window: 60,
        max: 10,
      },
    ],
    $ERROR_CODES: VERIKIT_ERROR_CODES,
  } satisfies BetterAuthPlugin;
}
