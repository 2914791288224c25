import { InvalidInputError } from '@verikit/provider';
import { describe, expect, it } from 'vitest';
import { parseAfricasTalkingDeliveryReport } from './delivery-report.js';

// Issue 35, finding 10: Africa's Talking's delivery reports (docs.africastalking.com/sms/deliveryreports, read
// 2026-11-24 and 2026-11-28: `id`, `status`, `phoneNumber`, `networkCode`, `failureReason`, `retryCount`) become the
// provider spec's delivery receipt.
const report = (fields: Record<string, string>) => ({
  body: new URLSearchParams({
    id: 'ATXid_1f2e',
    phoneNumber: '+254711000150',
    networkCode: '63902',
    ...fields,
  }).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});

describe('parseAfricasTalkingDeliveryReport', () => {
  it('reads Success as delivered, without the number', () => {
    const event = parseAfricasTalkingDeliveryReport(report({ status: 'Success', retryCount: '0' }));
    expect(event).toEqual({ type: 'delivery', messageId: 'ATXid_1f2e', status: 'delivered' });
    expect(JSON.stringify(event)).not.toContain('254711000150');
  });

  it('reads Failed and Rejected as undelivered with the network reason; statuses on the way are ignored', () => {
    expect(parseAfricasTalkingDeliveryReport(report({ status: 'Failed', failureReason: 'DeliveryFailure' }))).toEqual({
      type: 'delivery',
      messageId: 'ATXid_1f2e',
      status: 'undelivered',
      reason: 'africastalking:DeliveryFailure',
    });
    expect(parseAfricasTalkingDeliveryReport(report({ status: 'Rejected' }))).toMatchObject({
      reason: 'africastalking:Rejected',
    });
    for (const status of ['Sent', 'Submitted', 'Buffered'])
      expect(parseAfricasTalkingDeliveryReport(report({ status }))).toBeNull();
  });

  it('refuses a body that is not a report, naming the field', () => {
    for (const [fields, field] of [
      [{ status: 'Delivered' }, 'status'],
      [{ status: 'Success', id: '' }, 'id'],
      [{ status: 'Failed', failureReason: '<script>' }, 'failureReason'],
    ] as const) {
      let error: unknown;
      try {
        parseAfricasTalkingDeliveryReport(report(fields));
      } catch (caught) {
        error = caught;
      }
      expect(InvalidInputError.isInstance(error) && error.field).toBe(field);
    }
  });
});
