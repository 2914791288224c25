import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '@verikit/provider';
import { parseTermiiDeliveryReport } from './termii-delivery-report.js';

// Termii's documented example body (developers.termii.com/events-and-reports, read 2026-11-24).
const documented = {
  type: 'outbound',
  message_id: '5964465985113503103',
  receiver: '2343459509389',
  sender: 'N-Alert',
  message: 'Your Termii confirmation code is 234u53.',
  sent_at: '2020-12-16 11:34:36',
  cost: '3.9',
  command: 'deliver',
  status: 'DELIVERED | Message delivered to handset',
  channel: 'Number Api',
};
const parse = (body: unknown) => parseTermiiDeliveryReport({ body: JSON.stringify(body), headers: {} });

describe('parseTermiiDeliveryReport', () => {
  it("reads Termii's documented report as delivered, without the number or the text", () => {
    const event = parse(documented);
    expect(event).toEqual({ type: 'delivery', messageId: '5964465985113503103', status: 'delivered' });
    expect(JSON.stringify(event)).not.toMatch(/2343459509389|234u53/);
  });

  it('reads the documented failures as undelivered with the status as the reason; statuses on the way are ignored', () => {
    expect(parse({ ...documented, status: 'DND Active on Phone Number' })).toMatchObject({
      status: 'undelivered',
      reason: 'DND Active on Phone Number',
    });
    expect(parse({ ...documented, status: 'Message Failed' })).toMatchObject({ status: 'undelivered' });
    expect(parse({ ...documented, status: 'Message Sent' })).toBeNull();
    expect(parse({ ...documented, type: 'inbound' })).toBeNull();
  });

  it('refuses a body that is not a report, naming the field', () => {
    for (const [body, field] of [
      ['{not json', 'body'],
      [JSON.stringify([1]), 'body'],
      [JSON.stringify({ ...documented, message_id: undefined }), 'message_id'],
      [JSON.stringify({ ...documented, status: '' }), 'status'],
    ] as const) {
      let error: unknown;
      try {
        parseTermiiDeliveryReport({ body, headers: {} });
      } catch (caught) {
        error = caught;
      }
      expect(InvalidInputError.isInstance(error) && error.field).toBe(field);
    }
  });
});
