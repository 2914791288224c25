import { describe, expect, it } from 'vitest';
import { StepLedger } from './step-ledger.js';

describe('StepLedger', () => {
  it('counts a second code for one step as a double send, per handset', () => {
    const ledger = new StepLedger();
    ledger.step('+2348030000001');
    expect(ledger.code('+2348030000001')).toBe(false);
    ledger.step('+2348030000002');
    expect(ledger.code('+2348030000002')).toBe(false);
    expect(ledger.code('+2348030000001')).toBe(true);
    ledger.step('+2348030000001');
    expect(ledger.code('+2348030000001')).toBe(false);
    expect(ledger.doubleSends).toBe(1);
  });

  it('counts a code with no step at all as the first of a step, and the next one as a double', () => {
    const ledger = new StepLedger();
    expect(ledger.code('+2348030000003')).toBe(false);
    expect(ledger.code('+2348030000003')).toBe(true);
    expect(ledger.doubleSends).toBe(1);
  });
});
