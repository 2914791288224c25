import { afterEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { startWebhookReceiver, type WebhookReceiver } from '@verikit/testing';
import { setup } from '../engine/engine.fixtures.js';
import type { FlowEvent } from '../flows/view.js';
import type { FlowStore } from '../store/flow-store.js';
import type { ManualClock } from '../engine/manual-clock.fixtures.js';
import { webhookSecretKey, type EventWebhookFailure, type EventWebhookOptions } from './event-webhook-options.js';
import { signWebhook } from './event-webhook.js';

const secret = `whsec_${Buffer.from('event-webhook-test-key-0123456789').toString('base64')}`;
const phone = '+2348031234567';
const receivers: WebhookReceiver[] = [];

async function receiver(): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver();
  receivers.push(started);
  return started;
}

afterEach(async () => {
  await Promise.all(receivers.splice(0).map((each) => each.close()));
});

function engine(
  url: string,
  options: Partial<EventWebhookOptions> = {},
  base: { store?: FlowStore; clock?: ManualClock } = {},
) {
  const failures: EventWebhookFailure[] = [];
  const made = setup({
    ...(base.store ? { store: base.store } : {}),
    ...(base.clock ? { clock: base.clock } : {}),
    eventWebhook: {
      url,
      secret,
      pollMs: 0,
      retryDelayMs: 1000,
      onGiveUp: (failure) => failures.push(failure),
      ...options,
    },
  });
  const events: FlowEvent[] = [];
  made.verikit.on('*', (event) => {
    events.push(event);
  });
  return { ...made, failures, events };
}

/** Runs a phone flow to `verified`, and returns its id. */
async function verifiedFlow(made: ReturnType<typeof engine>, number = phone): Promise<string> {
  const flow = await made.verikit.start({ kind: 'phone', phoneNumber: number });
  await made.verikit.send(flow.id, { type: 'submit-code', code: made.provider.lastCode(number)! });
  return flow.id;
}

describe('eventWebhook: lifecycle events POSTed to the app, signed, once per event', () => {
  it('delivers each event once, verified by the standardwebhooks package, with no number, code or secret', async () => {
    const target = await receiver();
    const made = engine(target.url);
    const flowId = await verifiedFlow(made);
    await made.verikit.deliverEvents();
    expect(made.events.map((event) => event.type)).toEqual(['started', 'sent', 'verified']);
    expect(target.received.map((request) => request.headers['webhook-id'])).toEqual(
      made.events.map((event) => event.id),
    );
    const verifier = new Webhook(secret);
    for (const request of target.received) {
      const payload = verifier.verify(request.body, request.headers) as { type: string; data: FlowEvent };
      expect(payload.type).toBe(`flow.${payload.data.type}`);
      expect(payload.data.flowId).toBe(flowId);
      expect(request.headers['content-type']).toBe('application/json');
      // A body changed on the way is refused: the check above can fail.
      expect(() => verifier.verify(request.body.replace(flowId, 'x'), request.headers)).toThrow();
    }
    const sent = target.received.map((request) => request.body).join('\n');
    expect(sent).not.toContain(phone.slice(4));
    expect(sent).not.toContain(made.provider.lastCode(phone));
    expect(sent).not.toContain(made.verikit.flowSecret(flowId));
    // Nothing left: another pass sends nothing more.
    expect(await made.verikit.deliverEvents()).toBe(0);
    expect(target.received).toHaveLength(3);
  });

  it('sends only the types asked for', async () => {
    const target = await receiver();
    const made = engine(target.url, { types: ['verified'] });
    await verifiedFlow(made);
    await made.verikit.deliverEvents();
    expect(target.received.map((request) => JSON.parse(request.body).type)).toEqual(['flow.verified']);
  });

  it('retries a failing receiver after the backoff with the same webhook-id, signed afresh', async () => {
    const target = await receiver();
    target.answer(500, 'hang');
    // The timeout bounds every request, the first (answered 500 at once) too: 200 ms was missed under a load of 20
    // before that request reached the receiver. 1.5 s is what the hanging one costs the test.
    const made = engine(target.url, { types: ['started'], timeoutMs: 1500, leaseMs: 5000 });
    await made.verikit.start({ kind: 'phone', phoneNumber: phone });
    await made.verikit.deliverEvents();
    expect(target.received).toHaveLength(1);
    // Not due yet: the first wait is retryDelayMs (plus up to 10 %).
    made.clock.advance(900);
    expect(await made.verikit.deliverEvents()).toBe(0);
    expect(target.received).toHaveLength(1);
    made.clock.advance(300);
    expect(await made.verikit.deliverEvents()).toBe(0); // the receiver does not answer: a timeout
    expect(target.received).toHaveLength(2);
    made.clock.advance(4 * 1100 + 1);
    expect(await made.verikit.deliverEvents()).toBe(1);
    const ids = target.received.map((request) => request.headers['webhook-id']);
    expect(new Set(ids).size).toBe(1);
    for (const request of target.received) new Webhook(secret).verify(request.body, request.headers);
    expect(made.failures).toEqual([]);
  });

  it('gives up on 410 at once: logged at warning and told, never tried again', async () => {
    const target = await receiver();
    target.answer(410);
    const made = engine(target.url, { types: ['started'] });
    const flow = await made.verikit.start({ kind: 'phone', phoneNumber: phone });
    await made.verikit.deliverEvents();
    made.clock.advance(24 * 60 * 60_000);
    await made.verikit.deliverEvents();
    expect(target.received).toHaveLength(1);
    expect(made.failures).toEqual([
      {
        eventId: `${flow.id}:1:started`,
        flowId: flow.id,
        type: 'started',
        reason: 'gone',
        attempts: 1,
        lastStatus: 410,
      },
    ]);
    expect(made.logs.find((line) => line.message === 'verikit.event-webhook.given-up')?.level).toBe('warn');
  });

  it('gives up after maxAttempts, and an event older than maxAgeMs is never sent', async () => {
    const target = await receiver();
    target.answer(503, 503, 503);
    const made = engine(target.url, { types: ['started'], maxAttempts: 3, maxAgeMs: 60_000 });
    const flow = await made.verikit.start({ kind: 'phone', phoneNumber: phone });
    for (let pass = 0; pass < 4; pass += 1) {
      await made.verikit.deliverEvents();
      made.clock.advance(20_000);
    }
    expect(target.received).toHaveLength(3);
    expect(made.failures.map(({ reason, attempts, lastStatus }) => ({ reason, attempts, lastStatus }))).toEqual([
      { reason: 'attempts', attempts: 3, lastStatus: 503 },
    ]);

    // The receiver is down for longer than maxAgeMs: the event is given up when it comes due again.
    target.answer(500);
    await made.verikit.send(flow.id, { type: 'cancel' });
    const canceled = await made.verikit.start({ kind: 'phone', phoneNumber: '+2348031234568' });
    await made.verikit.deliverEvents();
    made.clock.advance(61_000);
    await made.verikit.deliverEvents();
    expect(made.failures.at(-1)).toMatchObject({ flowId: canceled.id, reason: 'age', attempts: 1 });
    expect(target.received).toHaveLength(4);
  });

  it('never follows a redirect: a 3xx is a failed attempt', async () => {
    const target = await receiver();
    target.answer(302);
    const made = engine(target.url, { types: ['started'] });
    await made.verikit.start({ kind: 'phone', phoneNumber: phone });
    expect(await made.verikit.deliverEvents()).toBe(0);
    expect(target.received.map((request) => request.path)).toEqual(['/events']);
  });

  it('two engines on one store: an engine that dies mid-send leaves its events to the other, each sent once', async () => {
    const target = await receiver();
    // Engine A commits, takes its events and never finishes sending them (a process frozen or killed).
    const dead = engine(target.url, { leaseMs: 60_000 });
    const stuck = engine(target.url, { fetch: () => new Promise<Response>(() => {}), leaseMs: 60_000 }, dead);
    await verifiedFlow(stuck);
    void stuck.verikit.deliverEvents();
    await new Promise((resolve) => setTimeout(resolve, 20));
    // A holds the event it was sending (its first pass is stuck on it, so it took no other): B sends the
    // others at once, and the held one only once A's lease has passed.
    expect(await dead.verikit.deliverEvents()).toBe(2);
    const held = stuck.events
      .map((event) => event.id)
      .filter((id) => !target.received.some((request) => request.headers['webhook-id'] === id));
    expect(held).toEqual([stuck.events[0]!.id]);
    dead.clock.advance(59_000);
    expect(await dead.verikit.deliverEvents()).toBe(0);
    dead.clock.advance(1001);
    await Promise.all([dead.verikit.deliverEvents(), dead.verikit.deliverEvents()]);
    expect(target.received.map((request) => request.headers['webhook-id']).sort()).toEqual(
      stuck.events.map((event) => event.id).sort(),
    );
  });

  it('two engines on one store, both delivering at once: every event exactly once', async () => {
    const target = await receiver();
    const first = engine(target.url);
    const second = engine(target.url, {}, first);
    const numbers = Array.from({ length: 10 }, (_, index) => `+23480312345${String(10 + index)}`);
    await Promise.all(numbers.map((number, index) => verifiedFlow(index % 2 === 0 ? first : second, number)));
    await Promise.all([first.verikit.deliverEvents(), second.verikit.deliverEvents()]);
    const committed = [...first.events, ...second.events].map((event) => event.id).sort();
    expect(committed).toHaveLength(30);
    expect(target.received.map((request) => request.headers['webhook-id']).sort()).toEqual(committed);
  });

  it('an engine that loses the compare-and-set to the same event leaves the winner’s event to be sent', async () => {
    const target = await receiver();
    target.answer(500);
    const first = engine(target.url, { types: ['delivered'] });
    const shared = first.store;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    // The second engine's compare-and-sets wait at the gate: it loads the flow and announces its event first.
    const gated: FlowStore = {
      getFlow: (id) => shared.getFlow(id),
      compareAndSetFlow: async (record, expected, ttl) => {
        await gate;
        return shared.compareAndSetFlow(record, expected, ttl);
      },
      getRoute: (key) => shared.getRoute(key),
      setRoute: (key, flowId, ttl) => shared.setRoute(key, flowId, ttl),
      claim: (key, ttl) => shared.claim(key, ttl),
      consume: (key, limit, windowMs, now) => shared.consume(key, limit, windowMs, now),
      eventOutbox: () => shared.eventOutbox(),
    };
    const second = engine(target.url, { types: ['delivered'] }, { store: gated, clock: first.clock });
    const flow = await first.verikit.start({ kind: 'phone', phoneNumber: phone });
    const receipt = (id: string) => ({
      id,
      event: { type: 'delivery' as const, messageId: 'req-1', status: 'delivered' as const },
    });
    // Both engines compute `<flowId>:3:delivered`; the first commits it, and its first attempt fails (500).
    const losing = second.verikit.receive(receipt('dlr-b'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    await first.verikit.receive(receipt('dlr-a'));
    await first.verikit.deliverEvents();
    expect(target.received).toHaveLength(1);
    // The second loses its compare-and-set: the event it announced is the first's, and must still be sent.
    open();
    await losing;
    first.clock.advance(1200);
    expect(await first.verikit.deliverEvents()).toBe(1);
    expect(target.received.map((request) => request.headers['webhook-id'])).toEqual([
      `${flow.id}:3:delivered`,
      `${flow.id}:3:delivered`,
    ]);
    expect(second.events).toEqual([]);
  });

  it('drops an id whose commit another engine won, without sending it', async () => {
    const target = await receiver();
    const made = engine(target.url);
    const flow = await made.verikit.start({ kind: 'phone', phoneNumber: phone });
    await made.verikit.deliverEvents();
    const before = target.received.length;
    // An id announced by a commit that lost its compare-and-set: the flow has that version without it.
    await made.store.eventOutbox().add([`${flow.id}:2:verified`], made.clock.now());
    expect(await made.verikit.deliverEvents()).toBe(0);
    expect(target.received).toHaveLength(before);
  });
});

describe('Standard Webhooks signatures', () => {
  it("match the spec's published vector", () => {
    // From standard-webhooks/standard-webhooks, libraries/javascript/src/webhook.test.ts ("sign function works"),
    // commit 10d3e46d720c4e5861a792bec25792a04ad4e2b3, read 2026-11-24.
    const key = webhookSecretKey('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')!;
    expect(signWebhook(key, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });
});
