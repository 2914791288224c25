import { InvalidInputError, silentLogger, type ProviderCallContextV1 } from '@verikit/provider';
import { createTestProviderV1 } from '@verikit/testing';
import { describe, expect, it } from 'vitest';
import { withFailover } from '../with-failover.js';
import { formatRouteTable } from './format-route-table.js';
import { createLearningRouter } from './learning-router.js';
import { createMemoryRouteCounts } from './memory-route-counts.js';

const context = (): ProviderCallContextV1 => ({
  signal: new AbortController().signal,
  idempotencyKey: 'flow:effect:1',
  logger: silentLogger,
});

/** Three members; `verifies` says which member's codes people type back on MTN (234803). */
function world(seed: number, verifies: (member: string) => boolean) {
  const members = ['first', 'second', 'third'].map((name) => createTestProviderV1({ name, channels: ['sms'] }));
  let now = 0;
  const router = createLearningRouter({ seed, clock: { now: () => now } });
  const failover = withFailover(members, { router });
  let n = 0;
  const flow = async () => {
    n += 1;
    now += 1000;
    const phoneNumber = `+234803${String(1_000_000 + n).slice(1)}`;
    const sent = await failover.phone!.send({ phoneNumber, channel: 'sms' }, context());
    const member = sent.sentBy!;
    if (verifies(member)) {
      const code = members.find((each) => each.name === member)!.lastCode(phoneNumber)!;
      expect(await failover.phone!.check({ requestId: sent.requestId, code }, context())).toMatchObject({
        valid: true,
      });
    }
    return member;
  };
  return { router, flow };
}

describe('createLearningRouter with withFailover', () => {
  it('moves new flows to the member whose flows get verified', async () => {
    const { router, flow } = world(7, (member) => member === 'third');
    const chosen: string[] = [];
    for (let index = 0; index < 300; index += 1) chosen.push(await flow());
    const last100 = chosen.slice(-100);
    expect(last100.filter((member) => member === 'third').length).toBeGreaterThan(90);
    const table = await router.table();
    expect(table[0]).toMatchObject({ route: 'sms:234803', member: 'third' });
    expect(formatRouteTable(table)).toContain('sms:234803');
  });
  it("leaves a member that stops verifying soon, however long it did well: the others are believed the route's share", async () => {
    // 'first' verifies its first 400 flows, then none; the others verify every flow. A fixed prior (0.65 for the
    // second member) made the hundreds of verified flows of 'first' outweigh the others for about 200 flows.
    let firstSent = 0;
    const { flow } = world(5, (member) => (member === 'first' ? firstSent < 400 : true));
    const chosen: string[] = [];
    while (firstSent < 400) {
      const member = await flow();
      chosen.push(member);
      if (member === 'first') firstSent += 1;
    }
    const before = chosen.length;
    let firstAfter = 0;
    for (let index = 0; index < 60; index += 1) {
      const member = await flow();
      if (member === 'first') {
        firstSent += 1;
        firstAfter += 1;
      }
    }
    expect(before).toBeGreaterThan(400);
    expect(firstAfter).toBeLessThan(30);
  });
  it('does not count flows still under way as failed: a member whose people verify late keeps its lead', async () => {
    // 'first' gets 95% of people verified, each 3 minutes after the send; 'second' 85%, at once. A flow starts every
    // 2 s, so about 90 of the first member's flows are always under way: counted as failed until they verify, they
    // made it look worse than the second for as long as it led (decision 1820).
    // Two instances share the counts and take flows in turn: each sees the other's sends under way.
    const members = ['first', 'second'].map((name) => createTestProviderV1({ name, channels: ['sms'] }));
    let now = 0;
    const counts = createMemoryRouteCounts();
    const instances = [3, 4].map((seed) =>
      withFailover(members, { router: createLearningRouter({ seed, counts, clock: { now: () => now } }) }),
    );
    const due: Array<{ at: number; check: () => Promise<unknown> }> = [];
    const chosen: string[] = [];
    for (let n = 1; n <= 1500; n += 1) {
      now += 2000;
      while (due.length > 0 && due[0]!.at <= now) await due.shift()!.check();
      const failover = instances[n % 2]!;
      const phoneNumber = `+234803${String(1_000_000 + n).slice(1)}`;
      const sent = await failover.phone!.send({ phoneNumber, channel: 'sms' }, context());
      const member = sent.sentBy!;
      chosen.push(member);
      const verifies = member === 'first' ? n % 20 !== 0 : n % 20 > 2;
      if (!verifies) continue;
      const code = members.find((each) => each.name === member)!.lastCode(phoneNumber)!;
      const check = () => failover.phone!.check({ requestId: sent.requestId, code }, context());
      if (member === 'first') due.push({ at: now + 180_000, check });
      else await check();
    }
    const last500 = chosen.slice(-500);
    expect(last500.filter((member) => member === 'first').length).toBeGreaterThan(400);
  });
  it('leaves a member whose recent flows are credibly worse than its long run, after a few dozen of them', async () => {
    // 'first' verifies 19 flows of 20 for its first 1,500 flows, then 12 of 20; the others 18 of 20. Its 1,500 good
    // flows held it above the others for hundreds of flows; its recent flows show the change (decision 1820).
    let firstSent = 0;
    let othersSent = 0;
    const { flow } = world(11, (member) => {
      if (member === 'first') return firstSent < 1500 ? firstSent % 20 !== 0 : firstSent % 20 < 12;
      othersSent += 1;
      return othersSent % 10 !== 0;
    });
    while (firstSent < 1500) if ((await flow()) === 'first') firstSent += 1;
    const after: string[] = [];
    for (let index = 0; index < 400; index += 1) {
      const member = await flow();
      after.push(member);
      if (member === 'first') firstSent += 1;
    }
    // Without the recent flows' test: about 230 of the 400 flows after the change went to it, 70 of the last 200.
    expect(after.filter((member) => member === 'first').length).toBeLessThan(80);
    expect(after.slice(-200).filter((member) => member === 'first').length).toBeLessThan(10);
  });
  it('gives the same choices for the same seed, and others for another', async () => {
    const run = async (seed: number) => {
      const { flow } = world(seed, (member) => member !== 'first');
      const chosen: string[] = [];
      for (let index = 0; index < 60; index += 1) chosen.push(await flow());
      return chosen.join(',');
    };
    expect(await run(3)).toBe(await run(3));
    expect(await run(3)).not.toBe(await run(4));
  });
  it('starts from the hand-written order: with no counts the first member leads most often', async () => {
    const router = createLearningRouter({ seed: 1 });
    let first = 0;
    for (let index = 0; index < 200; index += 1) {
      const choice = await router.choose({ phoneNumber: '+2348031234567', channel: 'sms', members: ['a', 'b', 'c'] });
      if (choice.order[0] === 'a') first += 1;
    }
    expect(first).toBeGreaterThan(80);
  });
  it('pinned rules win: use fixes the order, never removes a member', async () => {
    const router = createLearningRouter({
      seed: 1,
      pins: [
        { prefix: '+234805', use: ['c'] },
        { channel: 'voice', never: ['a'] },
      ],
    });
    const members = ['a', 'b', 'c'];
    const glo = await router.choose({ phoneNumber: '+2348051234567', channel: 'sms', members });
    expect(glo).toMatchObject({ order: ['c'], why: 'pinned: rule 0' });
    for (let index = 0; index < 20; index += 1) {
      const voice = await router.choose({ phoneNumber: '+2348031234567', channel: 'voice', members });
      expect(voice.order).not.toContain('a');
    }
  });
  it('a resend and the check go to the member that sent, and the check counts the verified flow', async () => {
    const counts = createMemoryRouteCounts();
    const members = ['first', 'second'].map((name) => createTestProviderV1({ name, channels: ['sms'] }));
    const failover = withFailover(members, {
      router: createLearningRouter({
        seed: 2,
        counts,
        clock: { now: () => 1000 },
        pins: [{ use: ['second', 'first'] }],
      }),
    });
    const phoneNumber = '+2348031110000';
    const sent = await failover.phone!.send({ phoneNumber, channel: 'sms' }, context());
    expect(sent.requestId.startsWith('second@sms:234803@rs~')).toBe(true);
    const resent = await failover.phone!.send({ phoneNumber, channel: 'sms', resendOf: sent.requestId }, context());
    expect(resent.sentBy).toBe('second');
    expect(resent.requestId.startsWith('second@sms:234803@rs~')).toBe(true);
    const code = members[1]!.lastCode(phoneNumber)!;
    expect(await failover.phone!.check({ requestId: resent.requestId, code }, context())).toMatchObject({
      valid: true,
    });
    const tally = (await counts.read('sms:234803')).second!;
    expect([tally.sent, tally.verified]).toEqual([1, 1]);
  });
  describe('the cost objective', () => {
    /**
     * A router whose route `sms:234803` already counted, per member, `sent` flows of which `verified` were; prices
     * from `card` (a member not on it: undefined). Returns how often each member came first in 200 choices.
     */
    async function firsts(
      card: Readonly<Record<string, number>>,
      counted: Readonly<Record<string, readonly [sent: number, verified: number]>>,
      members: readonly string[],
      objective: 'verified' | 'cost' = 'cost',
    ) {
      const router = createLearningRouter({
        seed: 9,
        clock: { now: () => 0 },
        ...(objective === 'cost' ? { objective: { price: (member: string) => card[member]! } } : {}),
      });
      for (const [member, [sent, verified]] of Object.entries(counted)) {
        for (let index = 0; index < sent; index += 1) await router.record('sms:234803', member, 'sent');
        for (let index = 0; index < verified; index += 1) await router.record('sms:234803', member, 'verified');
      }
      const first: Record<string, number> = {};
      let why = '';
      for (let index = 0; index < 200; index += 1) {
        const choice = await router.choose({ phoneNumber: '+2348031234567', channel: 'sms', members: [...members] });
        first[choice.order[0]!] = (first[choice.order[0]!] ?? 0) + 1;
        why = choice.why;
      }
      return { first, why };
    }

    it('sends most flows to the cheaper of two members that verify alike, though it is second by hand', async () => {
      const { first } = await firsts({ dear: 10, cheap: 5 }, { dear: [100, 80], cheap: [100, 80] }, ['dear', 'cheap']);
      // Ignored, the hand-written lead gives 'dear' about half; inverted (share × price), all of them.
      expect(first.cheap).toBeGreaterThan(190);
    });

    it('sends most flows to a dearer member that verifies enough more to be cheaper per verified person', async () => {
      // 0.9 / 10 = 0.09 verified per unit of money against 0.2 / 4 = 0.05.
      const dearer = await firsts({ good: 10, poor: 4 }, { good: [100, 90], poor: [100, 20] }, ['poor', 'good']);
      expect(dearer.first.good).toBeGreaterThan(190);
      // Not by much more: 0.9 / 10 against 0.6 / 4 = 0.15, the cheap one wins, where verified share alone says not.
      const cheaper = await firsts({ good: 10, fair: 4 }, { good: [100, 90], fair: [100, 60] }, ['good', 'fair']);
      expect(cheaper.first.fair).toBeGreaterThan(190);
      const byShare = await firsts({}, { good: [100, 90], fair: [100, 60] }, ['good', 'fair'], 'verified');
      expect(byShare.first.good).toBeGreaterThan(190);
    });

    it('takes a price of 0 as free, and a member not on the rate card as after every priced one', async () => {
      const free = await firsts({ own: 0, paid: 4 }, { own: [100, 40], paid: [100, 90] }, ['paid', 'own']);
      expect(free.first.own).toBe(200);
      // Its price undefined: before decision 1950 it was taken for free, and this poor member got every flow.
      const unpriced = await firsts({ paid: 40 }, { paid: [100, 60], stranger: [100, 20] }, ['stranger', 'paid']);
      expect(unpriced.first.paid).toBe(200);
    });

    it('names the objective in why, with each member’s drawn verified share per unit of money', async () => {
      const { why } = await firsts({ dear: 40, cheap: 4 }, { dear: [100, 90], cheap: [100, 80] }, ['dear', 'cheap']);
      expect(why).toMatch(/^sampled, verified per price: cheap 0\.\d{3}, dear 0\.0\d{3}$/);
      const { why: byShare } = await firsts({}, { a: [10, 9], b: [10, 8] }, ['a', 'b'], 'verified');
      expect(byShare).toMatch(/^sampled: [ab] 0\.\d{3}, [ab] 0\.\d{3}$/);
    });

    it('refuses an objective that is neither verified nor a price', () => {
      expect(() => createLearningRouter({ objective: { price: 4 } as never })).toThrow(/objective/);
    });
  });

  it('refuses bad options with the field named', () => {
    const field = (make: () => unknown) => {
      try {
        make();
      } catch (error) {
        expect(InvalidInputError.isInstance(error)).toBe(true);
        return (error as InvalidInputError).issues[0]!.field;
      }
      throw new Error('expected a refusal');
    };
    expect(field(() => createLearningRouter({ prior: { rate: 2 } }))).toBe('prior.rate');
    expect(field(() => createLearningRouter({ pins: [{ prefix: '234' as never, use: ['a'] }] }))).toBe('pins.0.prefix');
    expect(field(() => createLearningRouter({ pins: [{ prefix: '+234' }] }))).toBe('pins.0');
    expect(field(() => createLearningRouter({ halfLifeMs: 5 }))).toBe('halfLifeMs');
    expect(field(() => withFailover([createTestProviderV1()], { router: {} as never }))).toBe('router');
  });
});
