import { InvalidInputError, type InputIssue } from '@verikit/provider';

/** The delivery statuses Africa's Talking documents; `Rejected`, `Success` and `Failed` are final. */
export const africasTalkingDeliveryStatuses = Object.freeze([
  'Sent',
  'Submitted',
  'Buffered',
  'Rejected',
  'Success',
  'Failed',
] as const);

/** A documented delivery status. */
export type AfricasTalkingDeliveryStatus = (typeof africasTalkingDeliveryStatuses)[number];

/** A delivery report, as Africa's Talking POSTs it (form-encoded) to the delivery-report callback URL. */
export interface AfricasTalkingDeliveryReport {
  /** The message id the send answered (`messageId` of the recipient). */
  readonly id: string;
  /** Where the message is. */
  readonly status: AfricasTalkingDeliveryStatus;
  /** True for `Rejected`, `Success` and `Failed`: no later report follows. */
  readonly final: boolean;
  /** The recipient, in E.164. */
  readonly phoneNumber: string;
  /** The network's code, when sent. */
  readonly networkCode?: string;
  /** Why, for `Rejected` and `Failed`, where the network says (e.g. `UserInBlacklist`, `DeliveryFailure`). */
  readonly failureReason?: string;
  /** How many times the message was retried, when sent. */
  readonly retryCount?: number;
}

/**
 * Parses a delivery report body, or throws an `InvalidInputError` naming each missing or malformed field.
 *
 * @example
 * const report = parseDeliveryReport(await request.text());
 */
export function parseDeliveryReport(body: string): AfricasTalkingDeliveryReport {
  if (typeof body !== 'string' || body.length > 4096)
    throw new InvalidInputError([{ field: 'body', message: 'must be a form body of at most 4096 characters' }]);
  const form = new URLSearchParams(body);
  const issues: InputIssue[] = [];
  const id = form.get('id') ?? '';
  if (!/^[\x21-\x7e]{1,256}$/.test(id)) issues.push({ field: 'id', message: 'must be the message id' });
  const status = form.get('status') ?? '';
  if (!(africasTalkingDeliveryStatuses as readonly string[]).includes(status))
    issues.push({ field: 'status', message: `must be one of ${africasTalkingDeliveryStatuses.join(', ')}` });
  const rawNumber = (form.get('phoneNumber') ?? '').trim();
  const phoneNumber = rawNumber.startsWith('+') ? rawNumber : `+${rawNumber}`;
  if (!/^\+[1-9]\d{6,14}$/.test(phoneNumber))
    issues.push({ field: 'phoneNumber', message: 'must be the recipient in international format' });
  const networkCode = form.get('networkCode') ?? undefined;
  if (networkCode !== undefined && !/^[0-9A-Za-z]{0,16}$/.test(networkCode))
    issues.push({ field: 'networkCode', message: 'must be a network code' });
  const failureReason = form.get('failureReason') ?? undefined;
  if (failureReason !== undefined && !/^[A-Za-z0-9 _-]{0,64}$/.test(failureReason))
    issues.push({ field: 'failureReason', message: 'must be a reason name' });
  const rawRetries = form.get('retryCount');
  const retryCount = rawRetries === null || rawRetries === '' ? undefined : Number(rawRetries);
  if (retryCount !== undefined && !(Number.isInteger(retryCount) && retryCount >= 0 && retryCount <= 1000))
    issues.push({ field: 'retryCount', message: 'must be a whole number' });
  if (issues.length > 0) throw new InvalidInputError(issues);
  const known = status as AfricasTalkingDeliveryStatus;
  return Object.freeze({
    id,
    status: known,
    final: known === 'Rejected' || known === 'Success' || known === 'Failed',
    phoneNumber,
    ...(networkCode === undefined || networkCode === '' ? {} : { networkCode }),
    ...(failureReason === undefined || failureReason === '' ? {} : { failureReason }),
    ...(retryCount === undefined ? {} : { retryCount }),
  });
}
