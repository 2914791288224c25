import type { FlowView } from '@verikit/core';
import { describe, expect, it } from 'vitest';
import { attemptNote } from './attempt-note.js';

const phone = (
  version: number,
  status: FlowView['status'],
  attemptsLeft: number,
  error?: FlowView['error'],
): FlowView => ({
  id: 'flow-1',
  kind: 'phone',
  status,
  done: false,
  allowed: [],
  attemptsLeft,
  version,
  createdAt: 0,
  updatedAt: 0,
  serverTime: 0,
  ...(error === undefined ? {} : { error }),
});

describe('attemptNote', () => {
  it('says nothing for a first view, the same version again, or a flow without attempts', () => {
    expect(attemptNote(undefined, phone(2, 'awaiting-code', 5))).toBeUndefined();
    expect(attemptNote(phone(3, 'checking', 4), phone(3, 'checking', 4))).toBeUndefined();
    const { attemptsLeft: _, ...ussd } = phone(3, 'verified', 0);
    expect(attemptNote({ ...ussd, version: 2, status: 'awaiting-dial' }, ussd)).toBeUndefined();
    expect(attemptNote(phone(2, 'awaiting-code', 5), phone(3, 'expired', 5))).toBeUndefined();
  });
  it('says the attempt stays used when the check got no answer', () => {
    const unknown = { code: 'outcome_unknown', message: 'no answer' } as FlowView['error'];
    expect(attemptNote(phone(3, 'checking', 4), phone(4, 'awaiting-code', 4, unknown))).toBe(
      'no answer about the code: the attempt stays used (4 attempts left)',
    );
  });
  it('says a new code gives the attempts back', () => {
    expect(attemptNote(phone(4, 'awaiting-code', 1), phone(5, 'sending', 5))).toBe('a new code: 5 attempts left');
  });
  it('counts in words at the edges: one attempt, no attempts', () => {
    const invalid = { code: 'code_invalid', message: 'the code is not correct' } as FlowView['error'];
    expect(attemptNote(phone(3, 'checking', 1), phone(4, 'awaiting-code', 1, invalid))).toBe(
      'wrong code: 1 attempt left',
    );
    expect(attemptNote(phone(5, 'checking', 0), phone(6, 'locked', 0, invalid))).toBe(
      'wrong code on the last attempt: no attempts left, the flow is locked',
    );
  });
});
