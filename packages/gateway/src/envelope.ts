import { ProviderProtocolError } from '@verikit/provider';
import { z } from 'zod';
import type { GatewayOperation } from './endpoints.js';

/** The response envelope of every endpoint (docs/service.md, "The response envelope"). Only `success` is required to read a response. */
const envelopeSchema = z.looseObject({
  success: z.boolean({ error: 'must be a boolean' }),
  message: z.string({ error: 'must be a string' }).optional(),
  code: z.number({ error: 'must be a number' }).optional(),
  data: z.unknown().optional(),
});

/** A parsed response envelope. */
export type Envelope = z.output<typeof envelopeSchema>;

/** The outcome of reading a body: an envelope, or why there is none. Never carries the body text. */
export type EnvelopeReading = { ok: true; envelope: Envelope } | { ok: false; error: ProviderProtocolError };

/**
 * Reads a response body as the envelope. A body that is not JSON, or JSON of the wrong shape, gives a
 * `ProviderProtocolError` naming the missing field. The body itself is never quoted: it may carry a code.
 */
export function readEnvelope(operation: GatewayOperation, status: number, text: string): EnvelopeReading {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return {
      ok: false,
      error: new ProviderProtocolError(`gateway ${operation}: the response (HTTP ${status}) is not JSON`, {
        field: 'body',
      }),
    };
  }
  const result = envelopeSchema.safeParse(json);
  if (result.success) return { ok: true, envelope: result.data };
  const issue = result.error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : 'body';
  // zod 4 leaves `issue.input` out unless asked (and it would be the value, which may carry a code):
  // whether the field is missing is read from the parsed JSON itself.
  const problem =
    issue?.code === 'invalid_type' && !isPresent(json, issue.path) ? 'is missing' : (issue?.message ?? 'is invalid');
  const message = field === 'body' ? 'is not a JSON object' : `${field} ${problem}`;
  return {
    ok: false,
    error: new ProviderProtocolError(
      `gateway ${operation}: the response envelope (HTTP ${status}) ${field === 'body' ? message : `is malformed: ${message}`}`,
      {
        field,
      },
    ),
  };
}

/** Whether `path` leads to a key present in `json` (its value, whatever it is, is never read out). */
function isPresent(json: unknown, path: readonly PropertyKey[]): boolean {
  let current = json;
  for (const key of path) {
    if (typeof current !== 'object' || current === null || typeof key === 'symbol' || !Object.hasOwn(current, key))
      return false;
    current = (current as Record<string | number, unknown>)[key];
  }
  return true;
}
