import type { Verikit, Verification, VerificationMethod } from '@verikit/core';
import type { FlowHandlerOptions } from '@verikit/http';
import type { UserWithPhoneNumber } from './records.js';

/** Options of {@link verikitAuth}. */
export interface VerikitAuthOptions {
  /** The verikit engine whose flows verify the numbers and whose proofs the endpoints redeem. */
  verikit: Verikit;
  /**
   * Where verikit's flow routes live below Better Auth's base path: `'/verikit'` (the default) serves
   * `/api/auth/verikit/flows`, the `baseUrl` of `createFlowClient`.
   */
  flowPath?: string;
  /**
   * Options of the flow routes (`createFlowHandler` of `@verikit/http`): `trustProxy` or `clientKey` so the send
   * guard counts per client (docs/abuse.md), `proofTtlMs`, `webhooks`, `logger`, `cors`, …
   */
  flowHandler?: Omit<FlowHandlerOptions, 'verikit' | 'basePath'>;
  /**
   * Whether a verified number with no account creates one. Default: on, with a random undeliverable email
   * (`phone-<uuid>@phone.invalid`: Better Auth needs an email, and nobody can claim this one first) and an
   * empty name. `false`: only numbers already on an account sign in.
   */
  signUp?:
    | false
    | {
        /** The email of a new phone user. Default: a random address at `phone.invalid`. */
        temporaryEmail?: (phoneNumber: string) => string;
        /** The name of a new phone user. Default: empty. */
        name?: (phoneNumber: string) => string;
      };
  /**
   * The methods of verification whose proofs sign in and attach identities (`redeemProof`'s `methods`). Default:
   * verikit's `defaultProofMethods`, every method but `dial-in-identify` and `sms-inbound`. A "who is this" dial-in
   * (started without a number) proves only that *someone* dialled the reference, from the number it names: whoever
   * is talked into dialling an attacker's reference ("dial to claim your airtime") would sign the attacker in as
   * themselves. An SMS sender number can be forged on some routes, and whoever started the flow saw its reference.
   * So both are opt-in, and until one is named here the flow routes refuse to start such a flow (403): a dial-in
   * flow without a number, or a phone plan with an `sms-inbound` step.
   */
  proofMethods?: readonly VerificationMethod[];
  /**
   * What happens when a signed-in user links a verified number (`POST /phone-number/link-proof`) and it replaces
   * another. `notifyOldNumber`: the SMS the old number gets through `verikit.sendSms` (default: a short notice that
   * names no number; `from`: the sender, else the engine's `defaultSender`; `false`: none). A send that fails is logged, never an error of the change: the old number may
   * no longer work. `revokeOtherSessions`: end the user's other sessions on a change (default `false`: kept).
   */
  phoneNumberChange?: {
    notifyOldNumber?: false | { message?: string; from?: string };
    revokeOtherSessions?: boolean;
  };
  /** Called after a signed-in user linked a verified number, with the number it replaced, if any. */
  onPhoneNumberLinked?: (event: {
    /** The user, with the new number. */
    user: UserWithPhoneNumber;
    /** The number the user had before, or null. */
    previousPhoneNumber: string | null;
    /** What the redeemed proof proved. */
    verification: Verification;
  }) => void | Promise<void>;
  /** Called after a sign-in by phone, with the user and what verikit verified (a welcome SMS, an audit line). */
  onSignIn?: (event: {
    /** The user signed in. */
    user: UserWithPhoneNumber;
    /** What the redeemed proof proved: the number, the flow, when, the provider. */
    verification: Verification;
    /** True when this sign-in created the user. */
    isNewUser: boolean;
  }) => void | Promise<void>;
}
