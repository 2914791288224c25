import { safeProviderMessage } from '@verikit/provider';

/**
 * A provider's message made safe to show: every secret replaced by `[redacted]` (before digits are
 * masked, so a key of digits is not half-hidden), then cut, cleaned and digit-masked by `safeProviderMessage`.
 */
export function redactMessage(
  message: string | undefined,
  secrets: readonly (string | undefined)[],
): string | undefined {
  if (message === undefined) return undefined;
  let text = message.slice(0, 2000);
  for (const secret of secrets)
    if (secret !== undefined && secret.length >= 4) text = text.split(secret).join('[redacted]');
  return safeProviderMessage(text);
}
