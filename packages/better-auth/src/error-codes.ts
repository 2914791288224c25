/** The errors the plugin answers with (`error.code` in Better Auth's client), each with its message. */
export const VERIKIT_ERROR_CODES = {
  PROOF_REJECTED: {
    code: 'PROOF_REJECTED',
    message: 'The verification proof was not accepted: verify the number again',
  },
  INVALID_INPUT: { code: 'INVALID_INPUT', message: 'The request is not valid' },
  SIGN_UP_DISABLED: {
    code: 'SIGN_UP_DISABLED',
    message: 'No account has this phone number, and sign-up by phone is off',
  },
  IDENTITY_ALREADY_ATTACHED: {
    code: 'IDENTITY_ALREADY_ATTACHED',
    message: 'This BVN or NIN is already attached to another account',
  },
  ANOTHER_IDENTITY_ATTACHED: {
    code: 'ANOTHER_IDENTITY_ATTACHED',
    message: 'Another number of this type is already attached to this account',
  },
  PHONE_NUMBER_TAKEN: {
    code: 'PHONE_NUMBER_TAKEN',
    message: 'This phone number is already on another account',
  },
  VERIFICATION_UNAVAILABLE: {
    code: 'VERIFICATION_UNAVAILABLE',
    message: 'Verification is unavailable for a moment: try again',
  },
} as const;
