import { ProviderRejectedError, ProviderUnavailableError, type VerikitError } from '@verikit/provider';

/**
 * The per-recipient `statusCode`s of the messaging API's answer, as Africa's Talking documents them (see
 * src/fake/SOURCES.md): 100 to 102 mean the message was taken; the others say why it was not.
 */
export const africasTalkingRecipientStatus = Object.freeze({
  /** Taken for sending. */
  100: 'Processed',
  /** Sent (the sending page's answer reads `Success`). */
  101: 'Success',
  /** Queued for sending. */
  102: 'Queued',
  /** The account is held for a risk review. */
  401: 'RiskHold',
  /** The sender id is not registered for the account. */
  402: 'InvalidSenderId',
  /** The number is not valid. */
  403: 'InvalidPhoneNumber',
  /** The number cannot receive this message. */
  404: 'UnsupportedNumberType',
  /** The account balance is too low. */
  405: 'InsufficientBalance',
  /** The recipient opted out of the sender. */
  406: 'UserInBlacklist',
  /** No route to the recipient's network. */
  407: 'CouldNotRoute',
  /** Do-Not-Disturb, or a promotional sender outside its hours (Nigeria). */
  409: 'DoNotDisturbRejection',
  /** Africa's Talking failed. */
  500: 'InternalServerError',
  /** Africa's Talking's gateway failed. */
  501: 'GatewayError',
  /** The operator's gateway rejected the message. */
  502: 'RejectedByGateway',
} as const);

/** A status code Africa's Talking documents for a recipient. */
export type AfricasTalkingRecipientStatusCode = keyof typeof africasTalkingRecipientStatus;

/** What each refusal means, in words a developer acts on, and the input field at fault where there is one. */
const refusals: Readonly<Record<number, { readonly why: string; readonly field?: string }>> = {
  401: { why: 'the account is on risk hold; contact Africa’s Talking' },
  402: { why: 'the sender id is not registered for this account', field: 'from' },
  403: { why: 'the phone number is not valid', field: 'to' },
  404: { why: 'the phone number is of a type that cannot receive this message', field: 'to' },
  405: { why: 'the account balance is too low; top up the account' },
  406: { why: 'the recipient has opted out of messages from this sender (blacklist)', field: 'to' },
  407: { why: 'no route to the recipient’s network' },
  409: { why: 'the recipient is on Do-Not-Disturb for this sender, or outside the promotional window' },
  502: { why: 'the operator’s gateway rejected the message' },
};

/** True for the codes that mean the message was taken (100 Processed, 101 Success/Sent, 102 Queued). */
export function isAcceptedStatus(code: number): boolean {
  return code === 100 || code === 101 || code === 102;
}

/**
 * The typed error for a recipient that was not taken: 500/501 (Africa's Talking's own failure) a retryable
 * `ProviderUnavailableError` (it answered, so `requestSent` is true); every other documented code a
 * `ProviderRejectedError` naming the reason and the field at fault; an undocumented code a rejection quoting it.
 */
export function recipientError(label: string, code: number, status: string | undefined): VerikitError {
  const name = (africasTalkingRecipientStatus as Record<number, string>)[code] ?? status ?? 'unknown';
  if (code === 500 || code === 501) {
    return new ProviderUnavailableError(
      `${label}: Africa's Talking could not take the message (status ${code} ${name})`,
      { requestSent: true },
    );
  }
  const refusal = refusals[code];
  return new ProviderRejectedError(
    `${label}: Africa's Talking refused the message (status ${code} ${name})${refusal === undefined ? '' : `: ${refusal.why}`}`,
    { providerMessage: name, ...(refusal?.field === undefined ? {} : { field: refusal.field }) },
  );
}
