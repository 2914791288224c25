import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { pinoLogger } from './index.js';

/** A real pino instance at debug level writing JSON lines to a stream we read back. */
function pinoToLines() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'debug', base: null, timestamp: false }, stream), lines };
}

describe('pinoLogger', () => {
  it('keeps the message and every field at each level, as pino writes them', () => {
    const { logger, lines } = pinoToLines();
    const verikitLogger = pinoLogger(logger);
    verikitLogger.debug('verikit.flow.changed', { flowId: 'f1', status: 'sending' });
    verikitLogger.info('verikit.flow.started', { flowId: 'f1', kind: 'phone' });
    verikitLogger.warn('verikit.inbound.refused', { reason: 'no-secret' });
    verikitLogger.error('verikit.inbound.failed', { error: 'store_unavailable', retryable: true });
    verikitLogger.info('verikit.no-fields');
    expect(lines).toEqual([
      { level: 20, msg: 'verikit.flow.changed', flowId: 'f1', status: 'sending' },
      { level: 30, msg: 'verikit.flow.started', flowId: 'f1', kind: 'phone' },
      { level: 40, msg: 'verikit.inbound.refused', reason: 'no-secret' },
      { level: 50, msg: 'verikit.inbound.failed', error: 'store_unavailable', retryable: true },
      { level: 30, msg: 'verikit.no-fields' },
    ]);
  });

  it('works on a child logger, whose bindings join the fields', () => {
    const { logger, lines } = pinoToLines();
    pinoLogger(logger.child({ component: 'verikit' })).info('verikit.flow.started', { flowId: 'f1' });
    expect(lines).toEqual([{ level: 30, msg: 'verikit.flow.started', component: 'verikit', flowId: 'f1' }]);
  });

  it('is needed: pino given (message, fields) as is drops the fields (pino#870)', () => {
    const { logger, lines } = pinoToLines();
    (logger.info as (message: string, fields: Record<string, unknown>) => void)('verikit.flow.started', {
      flowId: 'f1',
    });
    expect(lines).toEqual([{ level: 30, msg: 'verikit.flow.started' }]);
  });
});
