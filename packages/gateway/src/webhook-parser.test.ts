import { InvalidInputError } from '@verikit/provider';
import { describe, expect, it } from 'vitest';
import { createWebhookParser } from './webhook-parser.js';

// Moved from packages/testing/src/test-provider-v1.test.ts (the test double no longer parses the
// service's body: docs/decisions/0621-test-double-takes-a-webhook-parser.md). The double named the
// fields `body.status` and `body.phoneNumber`; this parser names them as the body does.
describe('createWebhookParser: the service USSD_VERIFICATION body', () => {
  const parse = createWebhookParser();
  const raw = (body: string) => ({ body, headers: {} });

  it("reads the service's USSD_VERIFICATION payload, and gives null for other events", () => {
    expect(
      parse(raw(JSON.stringify({ event: 'USSD_VERIFICATION', phoneNumber: '+2348012345678', status: 'failed' }))),
    ).toEqual({
      type: 'ussd-verification',
      phoneNumber: '+2348012345678',
      status: 'failed',
    });
    expect(parse(raw(JSON.stringify({ event: 'SMS_DELIVERED', id: 1 })))).toBeNull();
  });

  it('refuses a malformed body with an InvalidInputError naming the field, never quoting it', () => {
    const cases: Array<[string, string]> = [
      ['not json 8012345678', 'body'],
      ['[1,2]', 'body'],
      [JSON.stringify({ event: 'USSD_VERIFICATION', phoneNumber: '+2348012345678', status: 'maybe' }), 'status'],
      [JSON.stringify({ event: 'USSD_VERIFICATION', status: 'success' }), 'phoneNumber'],
    ];
    for (const [body, field] of cases) {
      let caught: unknown;
      try {
        parse(raw(body));
      } catch (error) {
        caught = error;
      }
      expect(InvalidInputError.isInstance(caught) && caught.field, body).toBe(field);
      expect((caught as Error).message).not.toContain('8012345678');
    }
  });
});
