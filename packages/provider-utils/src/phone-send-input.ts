import { parseProviderInputV1, phoneSendInputSchemaV1, requireCapabilityV1, type ProviderV1 } from '@verikit/provider';
import type { z } from 'zod';

/**
 * A phone send's input as every phone provider reads it: parsed by the spec's schema (unless the engine marked it
 * parsed, decision 1520), then its channel and any code we generated checked against what `provider` declares: a
 * `CapabilityError` for a channel or a code the provider lacks, an `InvalidInputError` for malformed input.
 */
export function readPhoneSendInput(provider: ProviderV1, input: unknown): z.output<typeof phoneSendInputSchemaV1> {
  const parsed = parseProviderInputV1(phoneSendInputSchemaV1, input);
  requireCapabilityV1(provider, {
    capability: 'phone',
    channel: parsed.channel,
    customCode: parsed.code !== undefined,
  });
  return parsed;
}
