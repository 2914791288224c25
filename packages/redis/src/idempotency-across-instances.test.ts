import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startGatewayFake, type GatewayFake, type GatewayFakeMessageKind } from '@verikit/gateway/fake';
import { freshPhoneNumber } from '@verikit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallAnswer, IdempotencyMethod, IdempotencyPlan } from './idempotency-worker.fixtures.js';
import { WorkerProcess } from './multi-process.fixtures.js';
import { deleteNamespace, redisSkipReason, redisUrl, uniqueNamespace } from './redis-test-env.fixtures.js';

const skipReason = await redisSkipReason('@verikit/redis idempotency keys across two processes');
const namespace = uniqueNamespace('idempotency');

/**
 * Holds the requests that reach the gates while it is closed, and lets them all through when opened: while the first
 * process's send is held at the provider's door, the other process's call with the same key arrives for certain.
 */
class Hold {
  #closed = false;
  readonly #held: Array<() => void> = [];
  readonly #watchers = new Set<() => void>();

  close(): void {
    this.#closed = true;
  }

  open(): void {
    this.#closed = false;
    for (const release of this.#held.splice(0)) release();
  }

  /** Resolves at once while open; while closed, once opened. */
  pass(): Promise<void> {
    if (!this.#closed) return Promise.resolve();
    const passed = new Promise<void>((resolve) => this.#held.push(resolve));
    for (const watcher of this.#watchers) watcher();
    return passed;
  }

  /** Resolves once `count` requests are held. */
  holding(count: number): Promise<void> {
    return new Promise((resolve) => {
      const watcher = () => {
        if (this.#held.length < count) return;
        this.#watchers.delete(watcher);
        resolve();
      };
      this.#watchers.add(watcher);
      watcher();
    });
  }
}

/** A door in front of one of the fake's listeners, over real HTTP: every request passes the hold, then goes on as it came. */
async function startGate(target: string, hold: Hold): Promise<{ url: string; server: Server }> {
  const origin = new URL(target).origin;
  const server = createServer(async (incoming, outgoing) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    await hold.pass();
    const headers = new Headers();
    for (const [name, value] of Object.entries(incoming.headers)) {
      if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name))
        headers.set(name, value);
    }
    const answer = await fetch(`${origin}${incoming.url}`, {
      method: incoming.method,
      headers,
      ...(chunks.length === 0 ? {} : { body: Buffer.concat(chunks) }),
    });
    const body = Buffer.from(await answer.arrayBuffer());
    answer.headers.forEach((value, name) => {
      if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(name))
        outgoing.setHeader(name, value);
    });
    outgoing.writeHead(answer.status).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: url.href.replace(/\/$/, ''), server };
}

/** A worker process: an engine of its own on the shared Redis, its flow handler served over HTTP. */
interface Instance {
  readonly process: WorkerProcess;
  readonly url: string;
}

describe.skipIf(skipReason !== undefined)(
  'an idempotency key holds across two processes on one Redis, sending through the gateway fake over HTTP (decision 1660)',
  () => {
    let fake: GatewayFake;
    const hold = new Hold();
    const gates: Server[] = [];
    let instances: [Instance, Instance];
    let calls = 0;
    let arms = 0;

    beforeAll(async () => {
      fake = await startGatewayFake();
      const main = await startGate(fake.baseUrl, hold);
      const ussd = await startGate(fake.ussdBaseUrl, hold);
      gates.push(main.server, ussd.server);
      const plan: IdempotencyPlan = {
        url: redisUrl,
        namespace,
        secret: 'idempotency-two-processes-secret-0123456789',
        gateway: { apiKey: fake.apiKey, baseUrl: main.url, ussdBaseUrl: ussd.url },
      };
      const workers = [0, 1].map((index) => new WorkerProcess('idempotency-worker.fixtures.ts', index, plan));
      const booted = await Promise.all(workers.map((worker) => worker.message<{ url: string }>('booted')));
      instances = [
        { process: workers[0]!, url: booted[0]!.url },
        { process: workers[1]!, url: booted[1]!.url },
      ];
    });

    afterAll(async () => {
      hold.open();
      for (const instance of instances ?? []) {
        instance.process.send('done');
        await Promise.race([instance.process.exited, new Promise((resolve) => setTimeout(resolve, 30_000))]);
        instance.process.kill();
      }
      for (const gate of gates) {
        gate.closeAllConnections();
        await new Promise((resolve) => gate.close(resolve));
      }
      await fake?.close();
      await deleteNamespace(namespace);
    });

    /** One engine call in one process. */
    function call(instance: Instance, method: IdempotencyMethod, ...args: unknown[]): Promise<CallAnswer> {
      calls += 1;
      instance.process.send({ call: { id: calls, method, args } });
      return instance.process.message<CallAnswer>(`answer-${calls}`);
    }
    /** The value of a call that must succeed. */
    async function value(answer: Promise<CallAnswer>): Promise<Record<string, unknown>> {
      const settled = await answer;
      if (!settled.ok) throw new Error(`${settled.code}: ${settled.message}`);
      return settled.value;
    }

    /**
     * Both processes make the call at once. The provider's door is closed, so the first send waits there until the
     * other process's call has met the key held (its store found the claim or the stored parameters), or has answered,
     * or until a second send reached the door (an implementation that lets both through). The other process has then
     * met the first call under way, not its stored answer: the door was closed until then.
     */
    async function race<T>(run: (instance: Instance) => Promise<T>): Promise<[T, T]> {
      arms += 1;
      const arm = arms;
      await Promise.all(
        instances.map((instance) => {
          instance.process.send({ arm });
          return instance.process.message('armed');
        }),
      );
      const listeners: Array<() => void> = [];
      let met = false;
      const contended = new Promise<void>((resolve) => {
        for (const { process } of instances) {
          const listener = (message: unknown) => {
            if ((message as { contended?: unknown }).contended !== arm) return;
            met = true;
            resolve();
          };
          process.child.on('message', listener);
          listeners.push(() => process.child.off('message', listener));
        }
      });
      hold.close();
      const answers = instances.map(run) as [Promise<T>, Promise<T>];
      const anyAnswered = Promise.race(answers.map((answer) => answer.then(() => undefined)));
      try {
        await Promise.race([Promise.all([contended, hold.holding(1)]), hold.holding(2), anyAnswered]);
      } finally {
        hold.open();
        for (const remove of listeners) remove();
      }
      const settled = await Promise.all(answers);
      expect(met, 'the other process met the key held while the first call was under way').toBe(true);
      return settled;
    }

    /** Sends of one kind to one number that reached the gateway fake. */
    const sent = (kind: GatewayFakeMessageKind, to: string) =>
      fake.outbox.filter((message) => message.kind === kind && message.to === to).length;
    /** One answer replayed, one not, and both the same otherwise. */
    function expectOneReplay(answers: readonly CallAnswer[]): [Record<string, unknown>, Record<string, unknown>] {
      expect(answers.map((answer) => answer.ok)).toEqual([true, true]);
      const values = answers.map((answer) => answer as Extract<CallAnswer, { ok: true }>);
      expect(values.map((answer) => answer.replayed).sort()).toEqual([false, true]);
      return [values[0]!.value, values[1]!.value];
    }
    const refused = (answer: CallAnswer) =>
      answer.ok ? { ok: true } : { code: answer.code, mismatch: answer.mismatch };

    it('sendSms: both processes at once send once (the other gets the replay); a later repeat is replayed; other parameters are refused', async () => {
      const [a, b] = instances;
      const input = { from: 'Shop', to: freshPhoneNumber(), message: 'Your order shipped' };
      const key = { idempotencyKey: `sms-${randomUUID()}` };
      const [one, two] = expectOneReplay(await race((instance) => call(instance, 'sendSms', input, key)));
      expect(one).toEqual(two);
      expect(one).toEqual({ provider: 'gateway' });
      const later = await call(b, 'sendSms', input, key);
      expect(later).toEqual({ ok: true, value: one, replayed: true });
      expect(refused(await call(a, 'sendSms', { ...input, message: 'Another' }, key))).toEqual({
        code: 'idempotency_key_reused',
        mismatch: ['message'],
      });
      expect(sent('sms', input.to)).toBe(1);
    });

    it('sendWhatsApp: the same; the key of a WhatsApp message is refused for an SMS', async () => {
      const [a, b] = instances;
      const input = { to: freshPhoneNumber(), message: 'Your order shipped' };
      const key = { idempotencyKey: `wa-${randomUUID()}` };
      const [one, two] = expectOneReplay(await race((instance) => call(instance, 'sendWhatsApp', input, key)));
      expect(one).toEqual(two);
      expect(await call(a, 'sendWhatsApp', input, key)).toEqual({ ok: true, value: one, replayed: true });
      expect(refused(await call(b, 'sendWhatsApp', { ...input, to: freshPhoneNumber() }, key))).toEqual({
        code: 'idempotency_key_reused',
        mismatch: ['to'],
      });
      expect(refused(await call(b, 'sendSms', input, key))).toMatchObject({
        code: 'idempotency_key_reused',
        mismatch: expect.arrayContaining(['call']),
      });
      expect([sent('whatsapp', input.to), sent('sms', input.to)]).toEqual([1, 0]);
    });

    it('start: both processes at once make one flow and one send; another number with the key is refused', async () => {
      const [a, b] = instances;
      const input = { kind: 'phone', phoneNumber: freshPhoneNumber() };
      const key = { idempotencyKey: `start-${randomUUID()}` };
      const [one, two] = expectOneReplay(await race((instance) => call(instance, 'start', input, key)));
      expect(two.id).toBe(one.id);
      expect(await call(a, 'start', input, key)).toMatchObject({ ok: true, value: { id: one.id }, replayed: true });
      expect(refused(await call(b, 'start', { ...input, phoneNumber: freshPhoneNumber() }, key))).toEqual({
        code: 'idempotency_key_reused',
        mismatch: ['phoneNumber'],
      });
      expect(sent('phone-code', input.phoneNumber)).toBe(1);
    });

    it("send(flowId, 'resend'): both processes at once resend once; the key on another flow is refused", async () => {
      const [a, b] = instances;
      const phoneNumber = freshPhoneNumber();
      const flow = await value(call(a, 'start', { kind: 'phone', phoneNumber }));
      const key = { idempotencyKey: `resend-${randomUUID()}` };
      const [one, two] = expectOneReplay(
        await race((instance) => call(instance, 'send', flow.id, { type: 'resend' }, key)),
      );
      expect([one.id, two.id]).toEqual([flow.id, flow.id]);
      expect(sent('phone-code', phoneNumber)).toBe(2);
      expect(await call(b, 'send', flow.id, { type: 'resend' }, key)).toMatchObject({ ok: true, replayed: true });
      const other = await value(call(b, 'start', { kind: 'phone', phoneNumber: freshPhoneNumber() }));
      expect(refused(await call(a, 'send', other.id, { type: 'resend' }, key))).toEqual({
        code: 'idempotency_key_reused',
        mismatch: ['flowId'],
      });
      expect(sent('phone-code', phoneNumber)).toBe(2);
    });

    it("send(flowId, 'restart'): both processes at once restart a failed USSD flow once; the key for a resend is refused", async () => {
      const [a, b] = instances;
      const phoneNumber = freshPhoneNumber();
      const flow = await value(call(a, 'start', { kind: 'ussd', phoneNumber }));
      expect(flow.status).toBe('awaiting-dial');
      const failed = await value(
        call(b, 'receive', { id: randomUUID(), event: { type: 'ussd-verification', phoneNumber, status: 'failed' } }),
      );
      expect(failed.outcome).toBe('applied');
      const key = { idempotencyKey: `restart-${randomUUID()}` };
      const [one, two] = expectOneReplay(
        await race((instance) => call(instance, 'send', flow.id, { type: 'restart' }, key)),
      );
      expect([one.id, two.id]).toEqual([flow.id, flow.id]);
      expect(sent('ussd', phoneNumber)).toBe(2);
      expect(await call(a, 'send', flow.id, { type: 'restart' }, key)).toMatchObject({
        ok: true,
        value: { id: flow.id, status: 'awaiting-dial' },
        replayed: true,
      });
      expect(refused(await call(b, 'send', flow.id, { type: 'resend' }, key))).toEqual({
        code: 'idempotency_key_reused',
        mismatch: ['event'],
      });
      expect(sent('ussd', phoneNumber)).toBe(2);
    });

    describe('over HTTP, with Idempotency-Key, to the two processes’ flow handlers', () => {
      const post = (url: string, body: unknown, headers: Record<string, string>) =>
        fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
        });
      /** Both answers: status, whether replayed, body. */
      const read = async (response: Response) => ({
        status: response.status,
        replayed: response.headers.get('idempotent-replayed') === 'true',
        body: (await response.json()) as Record<string, any>,
      });
      type Read = Awaited<ReturnType<typeof read>>;
      const oneReplayed = (answers: readonly Read[]) =>
        expect(answers.map((answer) => answer.replayed).sort()).toEqual([false, true]);

      it('POST /flows: both at once start one flow and send once; another number is a 422', async () => {
        const phoneNumber = freshPhoneNumber();
        const headers = { 'idempotency-key': `http-start-${randomUUID()}` };
        const answers = await race(async ({ url }) =>
          read(await post(`${url}/flows`, { kind: 'phone', phoneNumber }, headers)),
        );
        expect(answers.map((answer) => answer.status)).toEqual([201, 201]);
        oneReplayed(answers);
        expect(answers[1].body.id).toBe(answers[0].body.id);
        const other = await read(
          await post(`${instances[0].url}/flows`, { kind: 'phone', phoneNumber: freshPhoneNumber() }, headers),
        );
        expect([other.status, other.body.error.code, other.body.error.mismatch]).toEqual([
          422,
          'idempotency_key_reused',
          ['phoneNumber'],
        ]);
        expect(sent('phone-code', phoneNumber)).toBe(1);
      });

      it('POST /flows/{id}/events: a resend, and a restart, both at once, each sent once; the key with another event is a 422', async () => {
        const phoneNumber = freshPhoneNumber();
        const phone = await read(await post(`${instances[0].url}/flows`, { kind: 'phone', phoneNumber }, {}));
        const resendKey = `http-resend-${randomUUID()}`;
        const resends = await race(async ({ url }) =>
          read(
            await post(
              `${url}/flows/${phone.body.id}/events`,
              { type: 'resend' },
              {
                'idempotency-key': resendKey,
                'verikit-flow-secret': phone.body.flowSecret,
              },
            ),
          ),
        );
        expect(resends.map((answer) => answer.status)).toEqual([200, 200]);
        oneReplayed(resends);
        expect(sent('phone-code', phoneNumber)).toBe(2);

        const ussdNumber = freshPhoneNumber();
        const ussd = await read(await post(`${instances[1].url}/flows`, { kind: 'ussd', phoneNumber: ussdNumber }, {}));
        await value(
          call(instances[0], 'receive', {
            id: randomUUID(),
            event: { type: 'ussd-verification', phoneNumber: ussdNumber, status: 'failed' },
          }),
        );
        const restartHeaders = {
          'idempotency-key': `http-restart-${randomUUID()}`,
          'verikit-flow-secret': ussd.body.flowSecret,
        };
        const restarts = await race(async ({ url }) =>
          read(await post(`${url}/flows/${ussd.body.id}/events`, { type: 'restart' }, restartHeaders)),
        );
        expect(restarts.map((answer) => answer.status)).toEqual([200, 200]);
        oneReplayed(restarts);
        expect(sent('ussd', ussdNumber)).toBe(2);
        const other = await read(
          await post(`${instances[0].url}/flows/${ussd.body.id}/events`, { type: 'resend' }, restartHeaders),
        );
        expect([other.status, other.body.error.code, other.body.error.mismatch]).toEqual([
          422,
          'idempotency_key_reused',
          ['event'],
        ]);
        expect([sent('phone-code', phoneNumber), sent('ussd', ussdNumber)]).toEqual([2, 2]);
      });
    });
  },
);
