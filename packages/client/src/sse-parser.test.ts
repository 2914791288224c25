import { describe, expect, it } from 'vitest';
import { EventStreamParser, type ServerSentEvent } from './sse-parser.js';

function parse(chunks: readonly string[], lastEventId?: string): { events: ServerSentEvent[]; retries: number[] } {
  const events: ServerSentEvent[] = [];
  const retries: number[] = [];
  const parser = new EventStreamParser(
    { onEvent: (event) => events.push(event), onRetry: (ms) => retries.push(ms) },
    lastEventId,
  );
  for (const chunk of chunks) parser.push(chunk);
  return { events, retries };
}

describe('EventStreamParser', () => {
  it('reads the flow stream as the server writes it: retry, then id/event/data blocks, heartbeats skipped', () => {
    const { events, retries } = parse([
      'retry: 3000\n\n',
      'id: 3\nevent: view\ndata: {"a":1}\n\n',
      ': heartbeat\n\n',
      'id: 4\nevent: view\ndata: {"a":2}\n\n',
    ]);
    expect(retries).toEqual([3000]);
    expect(events).toEqual([
      { event: 'view', data: '{"a":1}', id: '3' },
      { event: 'view', data: '{"a":2}', id: '4' },
    ]);
  });

  it('takes events split anywhere, byte by byte', () => {
    const text = 'id: 7\nevent: view\ndata: {"status":"verified"}\n\n';
    const { events } = parse([...text]);
    expect(events).toEqual([{ event: 'view', data: '{"status":"verified"}', id: '7' }]);
  });

  it('ends lines at CRLF, LF or CR, a CRLF split between chunks counting once', () => {
    const { events } = parse(['data: a\r', '\ndata: b\rdata: c\r\n\r', '\n', 'data: d\n\n']);
    expect(events.map((event) => event.data)).toEqual(['a\nb\nc', 'd']);
  });

  it('drops a leading BOM, joins data lines, defaults the type to message, strips one space only', () => {
    const { events } = parse(['\uFEFFdata:  two spaces\ndata:none\ndata\n\n']);
    expect(events).toEqual([{ event: 'message', data: ' two spaces\nnone\n', id: '' }]);
  });

  it('keeps the last id across events, ignores an id with NUL, and starts from a given Last-Event-ID', () => {
    const { events } = parse(['data: x\n\n', 'id: 5\ndata: y\n\n', 'id: 6\u00007\ndata: z\n\n'], '4');
    expect(events.map((event) => event.id)).toEqual(['4', '5', '5']);
  });

  it('takes retry only as digits, and dispatches nothing for an event without data', () => {
    const { events, retries } = parse(['retry: 10ms\nretry: -5\nretry:250\n\n', 'event: view\n\n', 'id: 9\n\n']);
    expect(retries).toEqual([250]);
    expect(events).toEqual([]);
  });

  it('discards an event the stream ended before finishing', () => {
    const { events } = parse(['data: complete\n\n', 'data: cut off\n']);
    expect(events.map((event) => event.data)).toEqual(['complete']);
  });

  it('ignores unknown fields and lines without a colon', () => {
    const { events } = parse(['foo: bar\nnonsense\ndata: kept\n\n']);
    expect(events.map((event) => event.data)).toEqual(['kept']);
  });

  it('refuses a line or an event over 1 MiB instead of growing without end', () => {
    const parser = new EventStreamParser({ onEvent: () => undefined });
    expect(() => parser.push(`data: ${'x'.repeat(1024 * 1024 + 1)}`)).toThrow(RangeError);
    const lines = new EventStreamParser({ onEvent: () => undefined });
    const line = `data: ${'y'.repeat(1000)}\n`;
    expect(() => {
      for (let index = 0; index < 1100; index += 1) lines.push(line);
    }).toThrow(RangeError);
  });
});
