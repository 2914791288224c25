import { describe, expect, it } from 'vitest';
import { errorFromEvent, errorFromResponse, retryAfterMsOf } from './error-from-response.js';

function answer(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { 'content-type': 'application/json', ...headers } });
}

describe('errorFromResponse: the server error rebuilt, nothing trusted', () => {
  it('keeps every field of a well-formed API error', async () => {
    const body = {
      error: {
        name: 'InvalidInputError',
        code: 'invalid_input',
        message: 'phoneNumber must be E.164',
        field: 'phoneNumber',
        isRetryable: false,
        issues: [{ field: 'phoneNumber', message: 'must be E.164' }],
      },
    };
    const error = await errorFromResponse(answer(400, JSON.stringify(body)));
    expect(error).toMatchObject({
      name: 'InvalidInputError',
      code: 'invalid_input',
      message: 'phoneNumber must be E.164',
      field: 'phoneNumber',
      isRetryable: false,
      statusCode: 400,
    });
    expect(error.issues).toEqual([{ field: 'phoneNumber', message: 'must be E.164' }]);
  });

  it('drops or bounds hostile fields: odd names, codes, fields, long messages, too many issues, odd allowed types', async () => {
    const body = {
      error: {
        name: '<script>alert(1)</script>',
        code: 'event_not_allowed',
        message: 'x'.repeat(10_000),
        field: 'a b<c>',
        isRetryable: 'yes',
        issues: [
          ...Array.from({ length: 80 }, (_, index) => ({ field: `f${index}`, message: 'bad' })),
          { field: 1, message: 2 },
          null,
        ],
        allowed: ['resend', 'DROP TABLE', 42, 'cancel'],
        retryAt: 'tomorrow',
      },
    };
    const error = await errorFromResponse(answer(409, JSON.stringify(body)));
    expect(error.name).toBe('FlowClientError');
    expect(error.code).toBe('event_not_allowed');
    expect(error.message).toHaveLength(500);
    expect(error.field).toBeUndefined();
    expect(error.isRetryable).toBe(false);
    expect(error.issues).toHaveLength(50);
    expect(error.allowed).toEqual(['resend', 'cancel']);
    expect(error.retryAt).toBeUndefined();
  });

  it('an answer that is not an API error is bad_response, retryable as its status is', async () => {
    const cases: Array<[number, string, boolean]> = [
      [502, '<html>Bad Gateway</html>', true],
      [503, '', true],
      [429, '{"error":"slow down"}', true],
      [404, '{"error":{"code":"Not Found!"}}', false],
      [403, 'null', false],
      [400, '[1,2,3]', false],
    ];
    for (const [status, body, isRetryable] of cases) {
      expect(await errorFromResponse(answer(status, body))).toMatchObject({
        code: 'bad_response',
        statusCode: status,
        isRetryable,
      });
    }
  });

  it('does not read a body past 256 KiB', async () => {
    const huge = JSON.stringify({ error: { code: 'invalid_input', message: 'x'.repeat(300 * 1024) } });
    expect(await errorFromResponse(answer(400, huge))).toMatchObject({ code: 'bad_response', statusCode: 400 });
  });

  it('reads Retry-After as seconds or an HTTP date, ignoring anything else', () => {
    const now = Date.UTC(2026, 0, 1);
    expect(retryAfterMsOf(answer(503, '', { 'retry-after': '2' }), now)).toBe(2000);
    expect(retryAfterMsOf(answer(503, '', { 'retry-after': new Date(now + 5000).toUTCString() }), now)).toBe(5000);
    expect(retryAfterMsOf(answer(503, '', { 'retry-after': new Date(now - 5000).toUTCString() }), now)).toBe(0);
    expect(retryAfterMsOf(answer(503, '', { 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfterMsOf(answer(503, '', { 'retry-after': '-1' }), now)).toBeUndefined();
    expect(retryAfterMsOf(answer(503, ''), now)).toBeUndefined();
  });
});

describe("errorFromEvent: the typed error of a stream's `event: error`", () => {
  it("rebuilds the error answer body: code, name, messageId, isRetryable, a wait it names; statusCode is the stream's 200", () => {
    const body = {
      error: {
        name: 'StoreUnavailableError',
        code: 'store_unavailable',
        message: 'store unavailable',
        messageId: 'verikit.error.store_unavailable',
        isRetryable: true,
        retryAfterMs: 1500,
      },
    };
    expect(errorFromEvent(JSON.stringify(body))).toMatchObject({
      name: 'StoreUnavailableError',
      code: 'store_unavailable',
      messageId: 'verikit.error.store_unavailable',
      isRetryable: true,
      statusCode: 200,
      retryAfterMs: 1500,
    });
  });

  it("data that is not an API error is a retryable bad_response; odd messageIds are replaced by the code's, odd waits dropped", () => {
    for (const data of ['', 'not json', 'null', '[1]', '{"error":"gone"}', '{"error":{"code":"Not Found!"}}']) {
      expect(errorFromEvent(data)).toMatchObject({
        code: 'bad_response',
        statusCode: 200,
        isRetryable: true,
        messageId: 'verikit.error.bad_response',
      });
    }
    for (const messageId of ['<b>x</b>', 'verikit', `verikit.${'a'.repeat(200)}`, 42]) {
      const error = errorFromEvent(
        JSON.stringify({ error: { code: 'flow_not_found', messageId, isRetryable: false, retryAfterMs: -5 } }),
      );
      expect(error).toMatchObject({
        code: 'flow_not_found',
        isRetryable: false,
        messageId: 'verikit.error.flow_not_found',
        retryAfterMs: undefined,
      });
    }
  });
});
