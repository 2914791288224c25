import { randomBytes } from 'node:crypto';
import { createVerikit, type FlowView } from '@verikit/core';
import type { Logger } from '@verikit/provider';
import { createTestProviderV1 } from '@verikit/testing';
import { describe, expect, it } from 'vitest';
import { redisInstanceSuite } from './redis-bus.fixtures.js';
import { createRedisChangeBus } from './redis-change-bus.js';
import { createRedisStore } from './create-redis-store.js';
import { redisSkipReason, redisUrl } from './redis-test-env.fixtures.js';

// 1,000 identity ladders of every shape and outcome on the real Redis, then every key, value, pub/sub message, log
// line, lifecycle event, view, verification and proof is searched for the identity numbers, names, dates of birth and
// selfie bytes they used (docs/security.md, "Identity data"). It must find none.

const skipReason = await redisSkipReason('identity leak scan');
const secret = 'identity-leak-scan-secret-0123456789abcdefgh';
/** 1,000 ladders (the figure docs/security.md quotes); CI runs 200 to keep its time small. */
const flows = process.env.CI === 'true' ? 200 : 1000;
const ladders = [
  ['otp'],
  ['match', 'otp'],
  ['match', 'face'],
  ['consent', 'otp', 'face'],
  ['match', 'consent', 'otp', 'face'],
] as const;

/** A person of this run: unique values, so a hit can only be a leak. */
function person(index: number) {
  const letters = (n: number) => Array.from(randomBytes(n), (byte) => String.fromCharCode(97 + (byte % 26))).join('');
  const year = 1950 + (index % 50);
  return {
    number: String(30_000_000_000 + index * 7919).padStart(11, '0'),
    firstName: `Leak${letters(8)}`,
    lastName: `Scan${letters(8)}`,
    dateOfBirth: `${year}-0${1 + (index % 9)}-1${index % 10}`,
    // A JPEG's first bytes, then 24 random bytes: their base64 and hex are what the scan looks for.
    selfie: new Uint8Array([0xff, 0xd8, 0xff, 0xe0, ...randomBytes(24)]),
  };
}

describe.skipIf(skipReason !== undefined)('identity data after 1,000 mixed ladders on Redis (200 in CI)', () => {
  const { namespace, stores, buses, engines, raw } = redisInstanceSuite('identity-leak');

  it('is in no Redis key or value, pub/sub message, log line, event, view, verification or proof', async () => {
    const lines: unknown[] = [];
    const logger: Logger = {
      debug: (message, fields) => void lines.push([message, fields]),
      info: (message, fields) => void lines.push([message, fields]),
      warn: (message, fields) => void lines.push([message, fields]),
      error: (message, fields) => void lines.push([message, fields]),
    };
    const store = createRedisStore({ url: redisUrl, namespace });
    const changeBus = createRedisChangeBus({ store });
    stores.push(store);
    buses.push(changeBus);
    const provider = createTestProviderV1({ historyLimit: 10 });
    const verikit = createVerikit({ provider, store, changeBus, secret, logger, guard: false });
    engines.push(verikit);
    const messages: string[] = [];
    const subscriber = raw().duplicate();
    await subscriber.connect();
    await subscriber.pSubscribe(`${namespace}*`, (message) => void messages.push(message));
    const events: unknown[] = [];
    verikit.on('*', (event) => void events.push(event));
    const seen: unknown[] = [];
    const people = Array.from({ length: flows }, (_, index) => person(index));
    const outcomes = { verified: 0, failed: 0, other: 0 };

    async function ladder(index: number) {
      const who = people[index]!;
      // Each flow's scripts and outbox its own.
      provider.reset();
      const steps = ladders[index % ladders.length]!;
      // Every sixth flow is told "no" at some step: a partial match, a refused consent, a face that is not theirs.
      if (index % 6 === 5) {
        provider.script('identity.match', {
          found: true,
          fields: { firstName: true, lastName: false, dateOfBirth: true },
        });
        provider.script('identity.consent.status', { status: 'refused' });
        provider.script('identity.face', { found: true, match: false, live: true });
      }
      const claims = { firstName: who.firstName, lastName: who.lastName, dateOfBirth: who.dateOfBirth };
      let view: FlowView = await verikit.start({
        kind: 'identity',
        idType: index % 2 === 0 ? 'bvn' : 'nin',
        number: who.number,
        steps: [...steps],
        ...(steps.includes('match' as never) ? { claims } : {}),
      });
      seen.push(view);
      for (let turn = 0; turn < 6 && !view.done; turn += 1) {
        if (view.status === 'awaiting-consent') view = await verikit.send(view.id, { type: 'consent-given' });
        else if (view.status === 'awaiting-code') {
          const code = provider.outbox.findLast((message) => message.code !== undefined)?.code ?? '000000';
          view = await verikit.send(view.id, { type: 'submit-code', code });
        } else if (view.status === 'awaiting-selfie')
          view = await verikit.send(view.id, { type: 'submit-selfie', image: who.selfie });
        else break;
        seen.push(view);
      }
      if (view.status === 'verified') {
        outcomes.verified += 1;
        seen.push(await verikit.verification(view.id));
        const proof = await verikit.issueProof(view.id);
        seen.push(
          proof,
          await verikit.redeemProof(proof.token, { idType: index % 2 === 0 ? 'bvn' : 'nin', number: who.number }),
        );
      } else if (view.status === 'failed') outcomes.failed += 1;
      else outcomes.other += 1;
    }
    // One at a time: the double's scripts and outbox are shared, and the order keeps each flow's answers its own.
    for (let index = 0; index < flows; index += 1) await ladder(index);

    // Every key and value under the namespace, whatever its type.
    const stored: string[] = [];
    for await (const keys of raw().scanIterator({ MATCH: `${namespace}*`, COUNT: 1000 })) {
      for (const key of ([] as string[]).concat(keys)) {
        stored.push(key);
        const type = await raw().type(key);
        if (type === 'string') stored.push(String(await raw().get(key)));
        else if (type === 'hash') stored.push(JSON.stringify(await raw().hGetAll(key)));
        else if (type === 'zset') stored.push(JSON.stringify(await raw().zRange(key, 0, -1)));
        else if (type === 'set') stored.push(JSON.stringify(await raw().sMembers(key)));
        else if (type === 'list') stored.push(JSON.stringify(await raw().lRange(key, 0, -1)));
      }
    }
    await subscriber.pUnsubscribe();
    subscriber.destroy();

    const haystacks = {
      redis: stored.join('\n'),
      pubsub: messages.join('\n'),
      logs: JSON.stringify(lines),
      events: JSON.stringify(events),
      viewsAndProofs: JSON.stringify(seen),
    };
    const needles = people.flatMap((who) => [
      who.number,
      who.firstName,
      who.lastName,
      who.dateOfBirth,
      Buffer.from(who.selfie.subarray(4)).toString('base64'),
      Buffer.from(who.selfie.subarray(4)).toString('hex'),
      Buffer.from(who.selfie.subarray(4)).toString('latin1'),
    ]);
    const found = Object.entries(haystacks).flatMap(([where, text]) =>
      needles.filter((needle) => text.includes(needle)).map((needle) => `${where}: ${needle.slice(0, 4)}…`),
    );
    console.info(
      `identity leak scan: ${flows} ladders (${outcomes.verified} verified, ${outcomes.failed} failed, ${outcomes.other} other); ` +
        `${stored.length} Redis keys and values, ${messages.length} pub/sub messages, ${lines.length} log lines, ` +
        `${events.length} events, ${seen.length} views, verifications and proofs searched for ${needles.length} values: ${found.length} found`,
    );
    // The search finds what is there: the double records its inputs (it is for tests), the number and selfie included.
    const recorded = JSON.stringify(provider.calls, (_key, value: unknown) =>
      value instanceof Uint8Array ? Buffer.from(value).toString('base64') : value,
    );
    expect(needles.filter((needle) => recorded.includes(needle)).length).toBeGreaterThan(0);
    expect(outcomes.verified).toBeGreaterThan(flows * 0.7);
    expect(outcomes.failed).toBeGreaterThan(flows * 0.1);
    expect(messages.length).toBeGreaterThan(flows);
    expect(stored.length).toBeGreaterThan(flows);
    expect(found).toEqual([]);
  }, 600_000);
});
