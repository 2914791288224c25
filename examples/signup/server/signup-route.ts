import type { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { z } from 'zod';
import type { ProofClaim, Verification, Verikit } from '@verikit/core';
import { MethodNotAllowedError, PayloadTooLargeError, UnsupportedMediaTypeError } from '@verikit/http';
import {
  identityNumberSchema,
  InvalidInputError,
  parseInput,
  phoneNumberSchema,
  VerikitError,
} from '@verikit/provider';
import type { Account, AccountStore } from './accounts.js';
import { errorAnswer } from './error-answer.js';

/** What `POST /api/signup` takes: the numbers, and a proof of each from a verified flow. */
const signupSchema = z.strictObject(
  {
    phoneNumber: phoneNumberSchema,
    bvn: identityNumberSchema,
    phoneProof: z
      .string({ error: 'must be the token from POST /api/verify/flows/:id/proof' })
      .regex(/^[\x21-\x7e]{1,2048}$/, { error: 'must be a proof token' }),
    bvnProof: z
      .string({ error: 'must be the token from POST /api/verify/flows/:id/proof' })
      .regex(/^[\x21-\x7e]{1,2048}$/, { error: 'must be a proof token' }),
  },
  { error: 'must be a JSON object' },
);

const maxBodyBytes = 8 * 1024;

/** What the signup answers with: the account (BVN masked) and whether the welcome SMS went out. */
interface SignupResult {
  readonly account: Account;
  readonly welcomeSms: 'sent' | 'failed';
}

/** What the signup route needs. */
export interface SignupDependencies {
  readonly verikit: Verikit;
  readonly accounts: AccountStore;
  /** The app's name in the welcome SMS. Default `Acme`. */
  readonly appName?: string;
  /** Failures after the account exists (the welcome SMS), for the app's logs. */
  readonly onError?: (error: unknown) => void;
}

/**
 * Mounts `POST /api/signup`: the browser sends the phone number and BVN with a proof of each
 * (tokens the flow handler issued once each flow was verified). The server never trusts the
 * browser's word that a flow is verified: it redeems each proof for the exact claim (this phone
 * number, this BVN), which fails for a proof of another number, an expired or used one, or a
 * forged one. Then it creates the account and sends the welcome SMS.
 */
export function mountSignupRoute(app: Hono, deps: SignupDependencies): void {
  const tooLarge = () => errorAnswer(new PayloadTooLargeError(maxBodyBytes));
  app.all('/api/signup', bodyLimit({ maxSize: maxBodyBytes, onError: tooLarge }), async (c) => {
    try {
      if (c.req.method !== 'POST') throw new MethodNotAllowedError(['POST']);
      const result = await signUp(deps, await readJson(c.req.raw));
      return c.json(result, 201);
    } catch (error) {
      return errorAnswer(error);
    }
  });
}

async function readJson(request: Request): Promise<unknown> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) throw new UnsupportedMediaTypeError();
  try {
    return JSON.parse(await request.text());
  } catch {
    throw new InvalidInputError([{ field: 'body', message: 'must be valid JSON' }]);
  }
}

/**
 * Redeems both proofs as one claim set (all or none: a signup refused on its BVN proof keeps its
 * phone proof), then creates the account (one per phone number, one per BVN), then sends the welcome
 * SMS (its failure does not undo the signup).
 */
async function signUp(deps: SignupDependencies, body: unknown): Promise<SignupResult> {
  const input = parseInput(signupSchema, body);
  const [, bvn] = await redeemBoth(deps.verikit, [
    { token: input.phoneProof, claim: { phoneNumber: input.phoneNumber } },
    { token: input.bvnProof, claim: { idType: 'bvn', number: input.bvn } },
  ]);
  const account = deps.accounts.create({ phoneNumber: input.phoneNumber, bvn: input.bvn, bvnHash: bvn!.numberHash! });
  try {
    await deps.verikit.sendSms({
      to: input.phoneNumber,
      message: `Welcome to ${deps.appName ?? 'Acme'}! Your account is ready.`,
    });
    return { account, welcomeSms: 'sent' };
  } catch (error) {
    deps.onError?.(error);
    return { account, welcomeSms: 'failed' };
  }
}

/** The body field of each proof of the set, in order. */
const proofFields = ['phoneProof', 'bvnProof'] as const;

/** Redeems the set; a rejection names the body field of the proof at fault, so the page knows which step to redo. */
async function redeemBoth(
  verikit: Verikit,
  proofs: readonly { token: string; claim: ProofClaim }[],
): Promise<Verification[]> {
  try {
    return await verikit.redeemProofs(proofs);
  } catch (error) {
    // A token that is not even shaped like a proof is as much a forgery as one with a bad seal.
    const index = VerikitError.isInstance(error) ? Number(/^proofs\.(\d)\./.exec(error.field ?? '')?.[1]) : Number.NaN;
    const field = proofFields[index];
    const rejected =
      VerikitError.isInstance(error) &&
      field !== undefined &&
      (error.code === 'proof_rejected' || error.code === 'invalid_input');
    if (rejected)
      throw new VerikitError('proof_rejected', 'the proof does not hold for this claim', { field, cause: error });
    throw error;
  }
}
