/**
 * The tables the plugin adds to Better Auth's. The phone fields on `user` have the names Better Auth's
 * phone-number plugin uses, so an app moving from it keeps its data; neither is ever an input of
 * `/sign-up/email` or `/update-user` (`input: false`): only a redeemed proof sets a number.
 */
export const verikitSchema = {
  user: {
    fields: {
      phoneNumber: { type: 'string', required: false, unique: true, sortable: true, returned: true, input: false },
      phoneNumberVerified: { type: 'boolean', required: false, returned: true, input: false },
    },
  },
  identityVerification: {
    fields: {
      userId: { type: 'string', required: true, references: { model: 'user', field: 'id', onDelete: 'cascade' } },
      idType: { type: 'string', required: true },
      /** The last four digits only, as verikit's views show it: `*******5678`. */
      numberMasked: { type: 'string', required: true },
      /** verikit's keyed hash of the number (HMAC under the engine secret): one number, one account. */
      numberHash: { type: 'string', required: true, unique: true },
      provider: { type: 'string', required: true },
      verifiedAt: { type: 'date', required: true },
    },
  },
} as const;
