import { recordSchemaVersion, type FlowRecord, type FlowView } from '@verikit/core';
import { describe, expect, it } from 'vitest';
import { encodeCommit, encodeRecord } from './record-encoding.js';

describe('encodeCommit: the record and the view from one JSON.stringify', () => {
  it('gives the envelope encodeRecord gives and the view as JSON, whatever the strings hold', () => {
    const tricky = '},{"value":{"version":1,"id":"x"}} \\", ,{"value":{"version":';
    const view = {
      id: 'flow-1',
      kind: 'phone',
      status: 'awaiting-code',
      done: false,
      allowed: ['submit-code'],
      error: { code: 'provider_rejected', message: tricky, messageId: 'verikit.error.provider_rejected' },
      version: 3,
      createdAt: 1,
      updatedAt: 2,
      serverTime: 2,
    } as unknown as FlowView;
    for (const ttl of [undefined, 60_000]) {
      const stored: FlowRecord = {
        schemaVersion: recordSchemaVersion,
        id: 'flow-1',
        kind: 'phone',
        version: 3,
        value: 'awaiting-code',
        context: { flowId: 'flow-1', note: '},{"value":{"version":7,"x":1}' },
        createdAt: 1,
        updatedAt: 2,
      };
      const { envelope, message } = encodeCommit(stored, ttl, view, 1_000);
      expect(envelope).toBe(encodeRecord(stored, ttl, 1_000));
      expect(envelope.startsWith('{"value":{"version":3,')).toBe(true);
      expect(JSON.parse(message)).toEqual(view);
    }
  });

  it('writes version first whatever key the record starts with, each other key once and in its order', () => {
    const rest = { schemaVersion: recordSchemaVersion, id: 'flow-1', kind: 'phone' as const, value: 'sending' };
    const times = { context: { flowId: 'flow-1' }, createdAt: 1, updatedAt: 2 };
    const expected = JSON.stringify({ value: { version: 4, ...rest, ...times } });
    for (const record of [
      { version: 4, ...rest, ...times },
      { ...rest, version: 4, ...times },
      { ...rest, ...times, version: 4 },
    ] as FlowRecord[]) {
      expect(encodeRecord(record, undefined)).toBe(expected);
      expect(encodeCommit(record, undefined, { id: 'flow-1' } as unknown as FlowView).envelope).toBe(expected);
    }
  });
});
