import { silentLogger } from '@verikit/provider';
import { callAgainst } from '@verikit/testing';
import { describe, expect, it } from 'vitest';
import { createTermiiProvider } from './create-termii-provider.js';
import { parseTermiiDeliveryReport } from './termii-delivery-report.js';

// Issue 35, finding 11: Termii's message ids have 19 digits (its documented examples, developers.termii.com,
// read 2026-11-28: "5964465985113503103" in a delivery report, "2255298515609943356" in a send answer). Sent as
// a JSON number, JSON.parse rounds one to 5964465985113503000, and the receipt no longer matches its send.
const id = '5964465985113503103';
const answer = `{"code":"ok","message_id":${id},"message":"Successfully Sent","balance":9.5,"user":"Acme"}`;
const context = () => ({ signal: new AbortController().signal, idempotencyKey: 'f:effect:1', logger: silentLogger });
const providerAt = (url: string) =>
  createTermiiProvider({ apiKey: 'TLsecretTermiiKey0123456789', baseUrl: url, senderId: 'Acme', whatsappFrom: 'Acme' });
const ok = (body: string) => ({ kind: 'status', status: 200, body }) as const;

describe('termii: a 19-digit message_id sent as a JSON number keeps every digit', () => {
  it('in the answer to an SMS and a WhatsApp message', async () => {
    const sms = await callAgainst(ok(answer), (url) =>
      providerAt(url).sms!.send({ from: 'Acme', to: '+2348012345678', message: 'hello' }, context()),
    );
    const whatsapp = await callAgainst(ok(answer), (url) =>
      providerAt(url).whatsapp!.send({ phoneNumber: '+2348012345678', message: 'hello' }, context()),
    );
    expect([sms.result, whatsapp.result]).toEqual([{ messageId: id }, { messageId: id }]);
  });

  it('in the answer to a voice code', async () => {
    const voice = await callAgainst(ok(`{"code":"ok","pinId":"pin-1","message_id":${id}}`), (url) =>
      providerAt(url).phone!.send({ phoneNumber: '+2348012345678', channel: 'voice' }, context()),
    );
    expect(voice.result).toEqual({ requestId: 'pin-1', messageId: id });
  });

  it('in a delivery report, so the receipt names the message its send named', () => {
    const body = `{"type":"outbound","message_id":${id},"receiver":"2348012345678","status":"DELIVERED"}`;
    expect(parseTermiiDeliveryReport({ body, headers: {} })).toEqual({
      type: 'delivery',
      messageId: id,
      status: 'delivered',
    });
  });

  it('other numbers read as JSON.parse reads them', async () => {
    const check = await callAgainst(ok('{"pinId":"pin-1","verified":true,"attempts":3,"cost":3.9}'), (url) =>
      providerAt(url).phone!.check({ requestId: 'pin-1', code: '123456' }, context()),
    );
    expect(check.result).toEqual({ valid: true });
  });
});

describe('termii: a WhatsApp code send keeps the message_id Termii answered', () => {
  it('returns it beside the requestId, as its delivery reports name it', async () => {
    const sent = await callAgainst(ok(answer), (url) =>
      providerAt(url).phone!.send({ phoneNumber: '+2348012345678', channel: 'whatsapp' }, context()),
    );
    expect(sent.result).toMatchObject({ messageId: id });
    expect((sent.result as { requestId: string }).requestId).toMatch(/^wa1/);
  });
});
