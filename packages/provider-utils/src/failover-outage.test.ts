import { createServer, type ServerResponse } from 'node:http';
import {
  ProviderUnavailableError,
  type Logger,
  type ProbeClaimV1,
  type ProviderCallContextV1,
  type SharedCircuitStateV1,
  type SharedCircuitsV1,
} from '@verikit/provider';
import { createTestProviderV1 } from '@verikit/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createPostingProvider } from './http-provider.fixtures.js';
import { withFailover } from './with-failover.js';

type Mode = 'ok' | '5xx' | 'hang';

/** A real local server that answers 200, answers 503, or reads the request and never answers. */
async function startSwitchableServer() {
  let mode: Mode = 'ok';
  const received: string[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push((JSON.parse(body) as { idempotencyKey: string }).idempotencyKey);
      if (mode === 'hang') hanging.add(response);
      else response.writeHead(mode === 'ok' ? 200 : 503, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    received,
    set: (next: Mode) => {
      mode = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of hanging) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const logs: Array<{ message: string; fields?: Record<string, unknown> }> = [];
const record = (message: string, fields?: Record<string, unknown>) => void logs.push({ message, fields });
const logger: Logger = { debug: record, info: record, warn: record, error: record };
let flows = 0;
const context = (): ProviderCallContextV1 => {
  flows += 1;
  return { signal: new AbortController().signal, idempotencyKey: `flow-${flows}:send:1`, logger };
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const servers: Array<{ close: () => Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe('withFailover in an outage: a circuit breaker per member', () => {
  it('5xx then timeouts open the first member’s circuit within the threshold; new flows go to the second; no flow is sent twice; a probe brings the first back', async () => {
    const first = await startSwitchableServer();
    const second = await startSwitchableServer();
    servers.push(first, second);
    const threshold = 3;
    const halfOpenAfterMs = 2000;
    const states: string[] = [];
    const failover = withFailover(
      [createPostingProvider('first', first.url, 2000), createPostingProvider('second', second.url)],
      {
        breaker: {
          threshold,
          halfOpenAfterMs,
          onStateChange: ({ member, state }) => states.push(`${member}:${state}`),
        },
      },
    );
    const told: string[] = [];
    const origins = new Set<string>();
    failover.circuits!.subscribe(({ provider, member, state, origin }) => {
      told.push(`${member}:${state}`);
      origins.add(origin);
      expect(provider).toBe('failover');
    });
    const outcomes: Array<{ key: string; sentBy?: string; error?: unknown }> = [];
    const flow = async () => {
      const call = context();
      try {
        const { sentBy } = await failover.phone!.send({ phoneNumber: '+2348031230001', channel: 'sms' }, call);
        outcomes.push({ key: call.idempotencyKey, sentBy });
        return sentBy;
      } catch (error) {
        outcomes.push({ key: call.idempotencyKey, error });
        return 'error';
      }
    };

    expect(await flow()).toBe('first');
    // The outage: two 503s, then requests that are read and never answered (timeouts). A 503 is a definite answer
    // that nothing was sent (decision 0920), so those flows move on to the second member at once; they still count
    // as failures of the first.
    first.set('5xx');
    expect([await flow(), await flow()]).toEqual(['second', 'second']);
    first.set('hang');
    // The third consecutive failure opens the circuit: the next flows go to the second member unsent by the first.
    expect(await flow()).toBe('error');
    const reachedFirst = first.received.length;
    expect([await flow(), await flow(), await flow()]).toEqual(['second', 'second', 'second']);
    expect(first.received).toHaveLength(reachedFirst);
    // Still down when the half-open probe comes: one flow probes it, fails, and the circuit opens again.
    await sleep(halfOpenAfterMs + 50);
    expect(await flow()).toBe('error');
    expect(first.received).toHaveLength(reachedFirst + 1);
    expect(await flow()).toBe('second');
    // Recovered: the next probe succeeds and the first member takes new flows again.
    first.set('ok');
    await sleep(halfOpenAfterMs + 50);
    expect([await flow(), await flow()]).toEqual(['first', 'first']);

    // Every failed flow (a timeout: it may have been sent) reached the first member only, never the second; every
    // sent flow reached the member named once; a flow reached both only after the first answered 503 (nothing sent).
    const failures = outcomes.filter((outcome) => outcome.error !== undefined);
    expect(failures).toHaveLength(2);
    for (const outcome of failures) expect(ProviderUnavailableError.isInstance(outcome.error)).toBe(true);
    for (const { key, sentBy } of outcomes) {
      const byFirst = first.received.filter((each) => each === key).length;
      const bySecond = second.received.filter((each) => each === key).length;
      if (sentBy === undefined) expect([byFirst, bySecond], key).toEqual([1, 0]);
      else if (sentBy === 'first') expect([byFirst, bySecond], key).toEqual([1, 0]);
      else expect(bySecond, key).toBe(1);
    }
    // Told to the provider's `circuits` (what the engine logs and tells) as to onStateChange, each by this instance.
    expect(told).toEqual(states);
    expect([...origins]).toEqual(['local']);
    // Told as events, half-open included: opened, probed, opened again, probed, closed.
    expect(states).toEqual(['first:open', 'first:half-open', 'first:open', 'first:half-open', 'first:closed']);
  });

  it('while one call probes a member that hangs, the other calls skip it at once instead of waiting for the probe', async () => {
    const first = await startSwitchableServer();
    const second = await startSwitchableServer();
    servers.push(first, second);
    const failover = withFailover(
      [createPostingProvider('first', first.url, 1500), createPostingProvider('second', second.url)],
      { breaker: { threshold: 1, halfOpenAfterMs: 200 } },
    );
    const sms = { from: 'Shop', to: '+2348031230001', message: 'hi' };
    first.set('5xx');
    await failover.sms!.send(sms, context());
    first.set('hang');
    await sleep(250);
    const settled: string[] = [];
    const probe = failover.sms!.send(sms, context()).then(
      () => settled.push('probe answered'),
      () => settled.push('probe failed'),
    );
    // Sent while the probe waits for its answer: each goes to the second member, and is answered before the probe.
    for (let index = 0; index < 3; index += 1) {
      await failover.sms!.send(sms, context());
      settled.push('skipped');
    }
    await probe;
    expect(settled).toEqual(['skipped', 'skipped', 'skipped', 'probe failed']);
    expect(first.received).toHaveLength(2);
    expect(second.received).toHaveLength(4);
  });

  it('an open member still checks the codes it sent; a resend of its code goes to the next member', async () => {
    const first = createTestProviderV1({ name: 'first', phoneCode: '111111' });
    const second = createTestProviderV1({ name: 'second', phoneCode: '222222' });
    const failover = withFailover([first, second], { breaker: { threshold: 1, halfOpenAfterMs: 60_000 } });
    const phoneNumber = '+2348031230009';
    const sent = await failover.phone!.send({ phoneNumber, channel: 'sms' }, context());
    expect(sent.sentBy).toBe('first');
    first.failNext('phone.send', new ProviderUnavailableError('HTTP 503', { requestSent: true }));
    await expect(failover.phone!.send({ phoneNumber, channel: 'sms' }, context())).rejects.toThrow('HTTP 503');
    expect(second.calls).toHaveLength(0);
    await expect(failover.phone!.check({ requestId: sent.requestId, code: '111111' }, context())).resolves.toEqual({
      valid: true,
    });
    const resent = await failover.phone!.send({ phoneNumber, channel: 'sms', resendOf: sent.requestId }, context());
    expect(resent.sentBy).toBe('second');
    expect(second.calls.at(-1)!.input).not.toHaveProperty('resendOf');
  });

  it('with every circuit open nothing is sent and the call fails unavailable, saying so', async () => {
    const only = await startSwitchableServer();
    servers.push(only);
    only.set('5xx');
    const failover = withFailover([createPostingProvider('only', only.url)], {
      breaker: { threshold: 2, halfOpenAfterMs: 60_000 },
    });
    const sms = { from: 'Shop', to: '+2348031230001', message: 'hi' };
    for (let index = 0; index < 2; index += 1) await expect(failover.sms!.send(sms, context())).rejects.toThrow('503');
    const error = await failover.sms!.send(sms, context()).catch((caught: unknown) => caught);
    expect(ProviderUnavailableError.isInstance(error)).toBe(true);
    expect((error as ProviderUnavailableError).requestSent).toBe(false);
    expect((error as Error).message).toMatch(/circuit open/);
    expect(only.received).toHaveLength(2);
  });

  it('reads the time from the clock it is given: a probe after halfOpenAfterMs of that clock, none before', async () => {
    const first = createTestProviderV1({ name: 'first' });
    const second = createTestProviderV1({ name: 'second' });
    let now = Date.UTC(2026, 0, 1);
    const failover = withFailover([first, second], {
      breaker: { threshold: 1, halfOpenAfterMs: 60_000, clock: { now: () => now } },
    });
    const sms = { from: 'Shop', to: '+2348031230001', message: 'hi' };
    first.failNext('sms.send', new ProviderUnavailableError('HTTP 503', { requestSent: true }));
    await expect(failover.sms!.send(sms, context())).rejects.toThrow('HTTP 503');
    now += 59_999;
    await failover.sms!.send(sms, context());
    expect([first.calls.length, second.calls.length]).toEqual([1, 1]);
    now += 1;
    await failover.sms!.send(sms, context());
    expect([first.calls.length, second.calls.length]).toEqual([2, 1]);
    expect(() => withFailover([first], { breaker: { clock: Date.now as never } })).toThrow(
      'breaker.clock must be an object with a now() function',
    );
  });

  it('takes the settings docs/providers/README.md shows, and `false`', () => {
    const members = [
      createPostingProvider('a', 'http://127.0.0.1:1'),
      createPostingProvider('b', 'http://127.0.0.1:2'),
    ];
    expect(withFailover(members, { breaker: { threshold: 5, halfOpenAfterMs: 30_000 } }).name).toBe('failover');
    expect(withFailover(members, { breaker: false }).name).toBe('failover');
  });

  it('refuses breaker settings that are not whole numbers in range, naming the field', () => {
    expect(() =>
      withFailover([createPostingProvider('a', 'http://127.0.0.1:1')], { breaker: { threshold: 0 } }),
    ).toThrow(/breaker\.threshold/);
    expect(() =>
      withFailover([createPostingProvider('a', 'http://127.0.0.1:1')], { breaker: { halfOpenAfterMs: 1.5 } }),
    ).toThrow(/breaker\.halfOpenAfterMs/);
    expect(() =>
      withFailover([createPostingProvider('a', 'http://127.0.0.1:1')], {
        breaker: { onStateChange: 'log' as never },
      }),
    ).toThrow(/breaker\.onStateChange/);
  });

  /** Shared circuits whose open (at 10) answers when the test calls `answerOpen`; `tell` delivers a message. */
  function openAnsweredLater() {
    let listener: ((member: string, state: SharedCircuitStateV1) => void) | undefined;
    let answer: (() => void) | undefined;
    const shared: SharedCircuitsV1 = {
      follow: (_group, _members, told) => {
        listener = told;
        return () => {};
      },
      markOpen: () =>
        new Promise(
          (resolve) => (answer = () => resolve({ opened: true, state: { state: 'open', remainingMs: 50, at: 10 } })),
        ),
      claimProbe: async () => ({ claimed: true, state: { state: 'half-open', remainingMs: 50, at: 20 } }),
      markClosed: async () => ({ closed: true, state: { state: 'closed', at: 40 } }),
    };
    return {
      shared,
      tell: (member: string, state: SharedCircuitStateV1) => listener!(member, state),
      answerOpen: () => answer!(),
    };
  }

  /** A failover of two test providers over `shared`, its first member's circuit opened by one outage. */
  async function openedFirst(shared: SharedCircuitsV1) {
    const first = createTestProviderV1({ name: 'first' });
    const second = createTestProviderV1({ name: 'second' });
    const states: string[] = [];
    const failover = withFailover([first, second], {
      breaker: {
        threshold: 1,
        halfOpenAfterMs: 50,
        shared,
        onStateChange: ({ member, state, origin }) => states.push(`${member}:${state}:${origin}`),
      },
    });
    const sms = { from: 'Shop', to: '+2348031230001', message: 'hi' };
    first.failNext('sms.send', new ProviderUnavailableError('down', { maybeSent: false }));
    await failover.sms!.send(sms, context());
    return { first, second, states, failover, sms };
  }

  it('a close another instance tells while this one claims the probe is kept: newer than the claim, it closes the circuit here', async () => {
    // Shared circuits whose claim answers when the test says: the close arrives between the claim's read and its answer.
    let tell: ((member: string, state: SharedCircuitStateV1) => void) | undefined;
    let answerClaim: ((claim: ProbeClaimV1) => void) | undefined;
    const shared: SharedCircuitsV1 = {
      follow: (_group, _members, listener) => {
        tell = listener;
        return () => {};
      },
      markOpen: async () => ({ opened: true, state: { state: 'open', remainingMs: 50, at: 10 } }),
      claimProbe: () => new Promise((resolve) => (answerClaim = resolve)),
      markClosed: async () => ({ closed: true, state: { state: 'closed', at: 40 } }),
    };
    const { first, second, states, failover, sms } = await openedFirst(shared);
    expect([first.outbox.length, second.outbox.length]).toEqual([0, 1]);
    await sleep(60);
    const sent = failover.sms!.send(sms, context());
    await sleep(0);
    expect(answerClaim).toBeDefined();
    // Another instance's probe closed the circuit (at 30) after this claim read it as being probed there (at 20).
    tell!('first', { state: 'closed', at: 30 });
    answerClaim!({ claimed: false, state: { state: 'half-open', remainingMs: 40, at: 20 } });
    await sent;
    expect([first.outbox.length, second.outbox.length]).toEqual([1, 1]);
    // The claim's answer (probed elsewhere), then the newer close.
    expect(states).toEqual(['first:open:local', 'first:half-open:remote', 'first:closed:remote']);
  });

  it("its own open told back before the open's answer is known as its own once the answer comes: told once, as local", async () => {
    // Shared circuits whose open answers when the test says: the subscriber delivers the open's message first.
    const { shared, tell, answerOpen } = openAnsweredLater();
    const { first, second, states, failover, sms } = await openedFirst(shared);
    tell('first', { state: 'open', remainingMs: 50, at: 10 });
    answerOpen();
    await sleep(0);
    expect(states).toEqual(['first:open:local']);
    // Open here all along: the next call skips the member.
    await failover.sms!.send(sms, context());
    expect([first.outbox.length, second.outbox.length]).toEqual([0, 2]);
  });

  it("another instance's close told while this one's open is unanswered is taken once the answer comes", async () => {
    const { shared, tell, answerOpen } = openAnsweredLater();
    const { first, states, failover, sms } = await openedFirst(shared);
    // Another instance probed and closed the circuit after this one's open was written.
    tell('first', { state: 'closed', at: 30 });
    answerOpen();
    await sleep(0);
    expect(states).toEqual(['first:open:local', 'first:closed:remote']);
    await failover.sms!.send(sms, context());
    expect(first.outbox).toHaveLength(1);
  });

  it('its own claim told back after its probe closed the circuit is known as its own: the member stays in rotation', async () => {
    // Shared circuits whose messages arrive when the test says: the claim's message comes back after the probe.
    let tell: ((member: string, state: SharedCircuitStateV1) => void) | undefined;
    let answerClose: (() => void) | undefined;
    const shared: SharedCircuitsV1 = {
      follow: (_group, _members, listener) => {
        tell = listener;
        return () => {};
      },
      markOpen: async () => ({ opened: true, state: { state: 'open', remainingMs: 50, at: 10 } }),
      claimProbe: async () => ({ claimed: true, state: { state: 'half-open', remainingMs: 50, at: 20 } }),
      markClosed: () =>
        new Promise((resolve) => (answerClose = () => resolve({ closed: true, state: { state: 'closed', at: 40 } }))),
    };
    const { first, second, states, failover, sms } = await openedFirst(shared);
    await sleep(60);
    await failover.sms!.send(sms, context());
    expect([first.outbox.length, second.outbox.length]).toEqual([1, 1]);
    // This instance's own messages come back late: its open, its claim (after its probe succeeded), then its close.
    tell!('first', { state: 'open', remainingMs: 50, at: 10 });
    tell!('first', { state: 'half-open', remainingMs: 50, at: 20 });
    await failover.sms!.send(sms, context());
    expect([first.outbox.length, second.outbox.length]).toEqual([2, 1]);
    tell!('first', { state: 'closed', at: 40 });
    answerClose!();
    await sleep(0);
    expect(states).toEqual(['first:open:local', 'first:half-open:local', 'first:closed:local']);
  });
});
