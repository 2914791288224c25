import { Webhook } from 'standardwebhooks';

/**
 * Checks a webhook the sandbox sent, with the `standardwebhooks` package: throws when the signature,
 * id or timestamp (5-minute window) is wrong. For tests that receive the sandbox's webhooks themselves.
 */
export function verifySandboxWebhook(
  webhook: { body: string; headers: Readonly<Record<string, string>> },
  secret: string,
): void {
  new Webhook(secret).verify(webhook.body, { ...webhook.headers });
}
