/**
 * `@verikit/better-auth`: a Better Auth plugin that signs users up and in by phone through verikit flows and
 * proofs, on any verikit provider, and attaches a verified BVN/NIN to a user (masked number and keyed hash only).
 * The client plugin is at `@verikit/better-auth/client`. Guide: docs/integrations/better-auth.md.
 *
 * @module
 */
export { verikitAuth } from './verikit-auth.js';
export type { UserWithPhoneNumber, IdentityVerificationRecord } from './records.js';
export type { VerikitAuthOptions } from './verikit-auth-options.js';
/** @public The error codes the endpoints answer with, for an application's checks of `error.code`. */
export { VERIKIT_ERROR_CODES } from './error-codes.js';
