import { createTestProviderV1 } from '@verikit/testing';
import { afterEach, expect, it, vi } from 'vitest';
import { createVerikit } from '../index.js';
import { testSecret } from '../engine/engine.fixtures.js';
import { systemClock } from './clock.js';

afterEach(() => {
  vi.useRealTimers();
});

it('reads the time Date says now, so a Date faked after import moves the system clock', () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.UTC(2031, 0, 1));
  expect(systemClock.now()).toBe(Date.UTC(2031, 0, 1));
});

it('moves an engine made without a clock when a test fakes Date', async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.UTC(2031, 0, 1));
  const verikit = createVerikit({ provider: createTestProviderV1(), secret: testSecret });
  const started = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345678' });
  expect(started.serverTime).toBe(Date.UTC(2031, 0, 1));
  expect(started.createdAt).toBe(Date.UTC(2031, 0, 1));
});
