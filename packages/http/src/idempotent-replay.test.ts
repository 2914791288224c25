import { afterEach, expect, it } from 'vitest';
import {
  describeAdapters,
  errorOf,
  otherPhoneNumber,
  phoneNumber,
  postJson,
  setupHttp,
  type HttpSetup,
} from './http.fixtures.js';

let app: HttpSetup | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describeAdapters('an Idempotency-Key is Stripe-grade on the routes that send (decision 1660)', () => {
  it('POST /flows: a repeat answers `Idempotent-Replayed: true` and sends nothing; another number is a 422 naming it', async () => {
    app = await setupHttp();
    const headers = { 'idempotency-key': 'start-1' };
    const first = await postJson(`${app.url}/flows`, { kind: 'phone', phoneNumber }, headers);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await postJson(`${app.url}/flows`, { kind: 'phone', phoneNumber }, headers);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(((await again.json()) as { id: string }).id).toBe(((await first.json()) as { id: string }).id);
    const other = await postJson(`${app.url}/flows`, { kind: 'phone', phoneNumber: otherPhoneNumber }, headers);
    expect(other.status).toBe(422);
    const body = (await other.json()) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({
      code: 'idempotency_key_reused',
      field: 'idempotencyKey',
      mismatch: ['phoneNumber'],
      messageId: 'verikit.error.idempotency_key_reused',
    });
    expect(JSON.stringify(body)).not.toContain(otherPhoneNumber.slice(4));
    expect(app.provider.callsOf('phone.send')).toHaveLength(1);
  });

  it('POST /flows/{id}/events: a keyed resend repeated is replayed, once sent; a malformed key is a 400 naming the header', async () => {
    app = await setupHttp({}, { policies: { resendCooldownMs: 0 } });
    const started = (await (await postJson(`${app.url}/flows`, { kind: 'phone', phoneNumber })).json()) as {
      id: string;
    };
    const events = `${app.url}/flows/${started.id}/events`;
    const first = await postJson(events, { type: 'resend' }, { 'idempotency-key': 'resend-1' });
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await postJson(events, { type: 'resend' }, { 'idempotency-key': 'resend-1' });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(app.provider.callsOf('phone.send')).toHaveLength(2);
    const bad = await postJson(events, { type: 'resend' }, { 'idempotency-key': 'with space' });
    expect(bad.status).toBe(400);
    expect((await errorOf(bad)).issues).toEqual([
      { field: 'idempotency-key', message: 'must be 1 to 255 visible ASCII characters' },
    ]);
  });
});
