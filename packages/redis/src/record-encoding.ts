import { RecordSchemaError, type FlowRecord, type FlowView } from '@verikit/core';
import { decodeEnvelope, encodeEnvelope } from './keyv-envelope.js';

/** Encodes a record as Keyv would, with `version` first so the CAS script reads it without decoding. */
export function encodeRecord(record: FlowRecord, ttl: number | undefined, wallNow: number = Date.now()): string {
  return encodeEnvelope(versionFirst(record), ttl, wallNow);
}

/** What a separator between the view and the envelope looks like in `JSON.stringify([view, envelope])`. */
const envelopeStart = ',{"value":{"version":';

/**
 * The stored envelope of `record` (as {@link encodeRecord}) and the message that publishes `view`, from one
 * `JSON.stringify` of both. The envelope is found where `,{"value":{"version":` first appears: a view has no key
 * `value`, and inside a JSON string every `"` is escaped, so nothing before the envelope can look like its start.
 */
export function encodeCommit(
  record: FlowRecord,
  ttl: number | undefined,
  view: FlowView,
  wallNow: number = Date.now(),
): { envelope: string; message: string } {
  const both = JSON.stringify([
    view,
    { value: versionFirst(record), expires: ttl === undefined ? undefined : wallNow + ttl },
  ]);
  const cut = both.indexOf(envelopeStart);
  return { envelope: both.slice(cut + 1, -1), message: both.slice(1, cut) };
}

/**
 * `record` when its first key is `version` (the engine writes it first), else a copy whose first key is `version`
 * (assigning over an object that has it keeps it first).
 */
function versionFirst(record: FlowRecord): FlowRecord {
  for (const key in record) {
    if (key === 'version') return record;
    break;
  }
  return Object.assign({ version: 0 }, record);
}

/** The record in a stored envelope; undefined for a missing key. */
export function decodeRecord(raw: unknown): FlowRecord | undefined {
  let value: unknown;
  try {
    value = decodeEnvelope<unknown>(raw as string | null);
  } catch (error) {
    throw new RecordSchemaError('a stored flow record is not a Keyv envelope', { cause: error });
  }
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || typeof (value as FlowRecord).version !== 'number') {
    throw new RecordSchemaError('a stored flow record has no version');
  }
  return value as FlowRecord;
}
