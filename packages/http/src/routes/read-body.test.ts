import { describe, expect, it } from 'vitest';
import { readBody } from './route-request.js';

const post = (body: string | Uint8Array | null, headers: Record<string, string> = {}) =>
  new Request('https://app.example/hook', { method: 'POST', body, headers });

describe('readBody', () => {
  it('returns the bytes exactly, a leading byte-order mark and all', async () => {
    const text = '\uFEFF{"a": 1,\r\n "b": "é"}  ';
    const result = await readBody(post(new TextEncoder().encode(text)), 1024);
    expect(result).toEqual({ ok: true, body: text });
    if (result.ok) expect(Buffer.from(result.body, 'utf8')).toEqual(Buffer.from(text, 'utf8'));
  });

  it('reads an empty body as an empty string', async () => {
    expect(await readBody(post(null), 10)).toEqual({ ok: true, body: '' });
  });

  it('accepts exactly maxBytes and refuses one more', async () => {
    expect(await readBody(post('x'.repeat(16)), 16)).toEqual({ ok: true, body: 'x'.repeat(16) });
    expect(await readBody(post('x'.repeat(17)), 16)).toEqual({ ok: false, reason: 'too-large' });
  });

  it('counts bytes, not characters', async () => {
    expect(await readBody(post('é'.repeat(9)), 16)).toEqual({ ok: false, reason: 'too-large' });
  });

  it('refuses invalid UTF-8 rather than replacing it', async () => {
    expect(await readBody(post(new Uint8Array([0x61, 0xc3, 0x28])), 16)).toEqual({ ok: false, reason: 'not-utf8' });
  });

  it('refuses a body already consumed by someone else', async () => {
    const request = post('{}');
    await request.text();
    expect(await readBody(request, 16)).toEqual({ ok: false, reason: 'already-read' });
  });

  it('refuses a stream that fails midway', async () => {
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.error(new Error('connection reset'));
      },
    });
    const request = new Request('https://app.example/hook', { method: 'POST', body, duplex: 'half' } as RequestInit);
    expect(await readBody(request, 16)).toEqual({ ok: false, reason: 'unreadable' });
  });
});
