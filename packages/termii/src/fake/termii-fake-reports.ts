import { createHmac, randomUUID } from 'node:crypto';

/** Where the fake sends delivery reports, as Termii does to the webhook URL of your developer console. */
export interface TermiiFakeDeliveryReports {
  /** Your endpoint (the flow handler's webhook route). */
  readonly url: string;
  /** The secret key the reports are signed with (`X-Termii-Signature`, HMAC-SHA512 in hex). */
  readonly secretKey: string;
  /** How long after the answer a report is sent, in ms (a real report takes seconds). Default 200. */
  readonly delayMs?: number;
}

/** One message whose report the fake sends. */
export interface TermiiFakeReportedMessage {
  readonly messageId: string;
  /** Termii's form of the number: digits, no `+`. */
  readonly receiver: string;
  readonly sender: string;
  readonly message: string;
  readonly channel: string;
  readonly delivered: boolean;
}

/** `2020-12-16 11:34:36`: the form of Termii's `sent_at`. */
function termiiTime(at: Date): string {
  return at.toISOString().slice(0, 19).replace('T', ' ');
}

/**
 * Sends one delivery report the way Termii documents it (developers.termii.com/events-and-reports, read
 * 2026-11-24): a JSON POST with the documented fields (`type`, `id`, `message_id`, `receiver`, `sender`,
 * `message`, `sent_at`, `cost`, `status`, `channel`), signed in `X-Termii-Signature`. Fire and forget: Termii
 * documents no retry, so neither does the fake.
 */
export function sendTermiiDeliveryReport(target: TermiiFakeDeliveryReports, reported: TermiiFakeReportedMessage): void {
  const body = JSON.stringify({
    type: 'outbound',
    id: randomUUID(),
    message_id: reported.messageId,
    receiver: reported.receiver,
    sender: reported.sender,
    message: reported.message,
    sent_at: termiiTime(new Date()),
    cost: '3.9',
    status: reported.delivered ? 'DELIVERED | Message delivered to handset' : 'DND Active on Phone Number',
    channel: reported.channel,
  });
  const signature = createHmac('sha512', target.secretKey).update(body).digest('hex');
  const post = () =>
    fetch(target.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-termii-signature': signature },
      body,
    }).then(
      (response) => response.body?.cancel(),
      () => undefined,
    );
  setTimeout(() => void post(), target.delayMs ?? 200).unref();
}
