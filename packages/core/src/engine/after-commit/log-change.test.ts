import { describe, expect, it } from 'vitest';
import { defaultLogger, silentLogger } from '@verikit/provider';
import { EngineTelemetry } from '../../telemetry/engine-telemetry.js';
import type { Telemetry } from '../../telemetry/telemetry.js';
import { captureLogger } from '../engine.fixtures.js';
import { committedChange } from './after-commit.fixtures.js';
import { logChange } from './log-change.js';

function counting() {
  const counted: Array<{ name: string; attributes: unknown }> = [];
  const sink: Telemetry = {
    span: (_name, _attributes, work) => work(() => {}),
    add: (name, attributes) => void counted.push({ name, attributes }),
    record: () => {},
  };
  return { telemetry: new EngineTelemetry(sink), counted };
}

describe('logChange', () => {
  it('logs a start at info and counts a started flow', () => {
    const { logger, lines } = captureLogger();
    const { telemetry, counted } = counting();
    logChange({ logger, telemetry })!(committedChange({ cause: 'start', previous: undefined }));
    expect(lines).toEqual([
      { level: 'info', message: 'verikit.flow.started', fields: { flowId: 'flow-1', kind: 'ussd' } },
    ]);
    expect(counted).toEqual([{ name: 'verikit.flows.started', attributes: { 'verikit.flow.kind': 'ussd' } }]);
  });

  it('logs a change at debug, with its status and version', () => {
    const { logger, lines } = captureLogger();
    logChange({ logger, telemetry: counting().telemetry })!(committedChange());
    expect(lines).toEqual([
      {
        level: 'debug',
        message: 'verikit.flow.changed',
        fields: { flowId: 'flow-1', kind: 'ussd', status: 'awaiting-dial', version: 2 },
      },
    ]);
  });

  it('counts a verification when the change ends the flow', () => {
    const { telemetry, counted } = counting();
    const change = committedChange();
    const next = change.flow.transitions.resolve('verified', change.next.context as Record<string, unknown>);
    logChange({ logger: captureLogger().logger, telemetry })!({ ...change, next });
    expect(counted).toEqual([
      { name: 'verikit.verifications', attributes: { 'verikit.flow.kind': 'ussd', 'verikit.outcome': 'verified' } },
    ]);
  });

  it('neither logs nor counts a tick', () => {
    const { logger, lines } = captureLogger();
    const { telemetry, counted } = counting();
    logChange({ logger, telemetry })!(committedChange({ cause: 'tick' }));
    expect(lines).toEqual([]);
    expect(counted).toEqual([]);
  });

  it('is no step with a logger that drops info and debug lines and no telemetry, and one with either', () => {
    const none = new EngineTelemetry(undefined);
    expect(logChange({ logger: defaultLogger, telemetry: none })).toBeUndefined();
    expect(logChange({ logger: silentLogger, telemetry: none })).toBeUndefined();
    expect(logChange({ logger: captureLogger().logger, telemetry: none })).toBeTypeOf('function');
    expect(logChange({ logger: defaultLogger, telemetry: counting().telemetry })).toBeTypeOf('function');
  });
});
