import { InvalidInputError, type InputIssue, type ProviderEventV1, type RawWebhookV1 } from '@verikit/provider';

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

/**
 * Reads one of Africa's Talking's SMS delivery reports (form-encoded `id`, `status`, `phoneNumber`, `networkCode`,
 * `failureReason`, `retryCount`; {@link parseDeliveryReport}) into the spec's delivery receipt for the message id the
 * send returned: `Success` is `delivered`; `Failed` and `Rejected` are `undelivered`, with
 * `africastalking:<failureReason>` as the reason (`africastalking:UserInBlacklist`), or the status when the network
 * gives none; `Sent`, `Submitted` and `Buffered` are on the way: `null`, acknowledged and ignored. The report names no
 * time, so the receipt has no `at`; the number stays out of it. A body that is not such a report is an
 * `InvalidInputError` naming the field, never quoting it. Africa's Talking signs no callback: what stands in front of
 * this parser is said in docs/providers/africastalking.md ("Delivery reports").
 */
export function parseAfricasTalkingDeliveryReport(webhook: RawWebhookV1): ProviderEventV1 | null {
  const report = parseDeliveryReport(webhook?.body);
  if (report.status === 'Success') return { type: 'delivery', messageId: report.id, status: 'delivered' };
  if (report.status !== 'Failed' && report.status !== 'Rejected') return null;
  return {
    type: 'delivery',
    messageId: report.id,
    status: 'undelivered',
    reason: `africastalking:${report.failureReason ?? report.status}`,
  };
}
