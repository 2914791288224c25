import { Webhook } from 'standardwebhooks';

/**
 * Checks a webhook the fake sent, with the `standardwebhooks` package: throws when the signature,
 * id or timestamp (5-minute window) is wrong. For tests that receive the fake's webhooks themselves.
 */
export function verifyGatewayFakeWebhook(
  webhook: { body: string; headers: Readonly<Record<string, string>> },
  secret: string,
): void {
  new Webhook(secret).verify(webhook.body, { ...webhook.headers });
}
