import { randomBytes } from 'node:crypto';
import { createVerikit, type FlowView } from '@verikit/core';
import type { Logger } from '@verikit/provider';
import type { FakeOutage } from '@verikit/provider-utils/fake';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVendors, type Vendors } from './identity-vendors.fixtures.js';

// 200 identity ladders through the real vendors' providers (Smile ID first, Dojah second, over real HTTP to their
// fakes), Smile ID failing some of them over to Dojah: every log line, lifecycle event, view, verification and proof
// is searched for the identity numbers, names, dates of birth and selfie bytes used. The Redis scan of the same kind
// (packages/redis/src/identity-leak-scan.test.ts) runs with the test double; this one runs the vendor packages, whose
// answers hold the records, so what they let out is what is searched.

const secret = 'vendor-leak-scan-secret-0123456789abcdefghij';
const flows = 200;
/** Per flow, by index: how Smile ID fails (undefined: it answers), so a step is served by one vendor or the other. */
const smileIdOutages: ReadonlyArray<FakeOutage | undefined> = [undefined, 503, undefined, 500, 502];

/** A person of this run: unique values, so a hit can only be a leak. The selfie is the photo on their record. */
function person(index: number) {
  const letters = (n: number) => Array.from(randomBytes(n), (byte) => String.fromCharCode(97 + (byte % 26))).join('');
  return {
    number: String(40_000_000_000 + index * 7919),
    firstName: `Vendor${letters(8)}`,
    lastName: `Leak${letters(8)}`,
    dateOfBirth: `${1950 + (index % 50)}-0${1 + (index % 9)}-1${index % 10}`,
    phoneNumber: `+234803${String(1_000_000 + index)}`,
    face: new Uint8Array([0xff, 0xd8, 0xff, 0xe0, ...randomBytes(24)]),
  };
}

describe('identity data after 200 ladders through Smile ID and Dojah', () => {
  const people = Array.from({ length: flows }, (_, index) => person(index));
  let vendors: Vendors;
  beforeAll(async () => {
    vendors = await startVendors(people);
  });
  afterAll(() => vendors.close());

  it('is in no log line, event, view, verification or proof; the vendors received it', async () => {
    const lines: unknown[] = [];
    const keep = (message: string, fields?: unknown) => void lines.push([message, fields]);
    const logger: Logger = { debug: keep, info: keep, warn: keep, error: keep };
    const { provider, otp } = vendors.kyc();
    const verikit = createVerikit({ provider, secret, logger, guard: false });
    const events: unknown[] = [];
    verikit.on('*', (event) => void events.push(event));
    const seen: unknown[] = [];
    const outcomes = { verified: 0, failed: 0, other: 0, byDojah: 0 };

    for (let index = 0; index < flows; index += 1) {
      const who = people[index]!;
      vendors.smileId.setOutage(smileIdOutages[index % smileIdOutages.length]);
      const idType = index % 2 === 0 ? 'bvn' : 'nin';
      // Every seventh claims another last name (a partial match); every eleventh sends someone else's face.
      const claims = {
        firstName: who.firstName,
        lastName: index % 7 === 6 ? 'Someoneelse' : who.lastName,
        dateOfBirth: who.dateOfBirth,
        ...(index % 3 === 0 ? { phoneNumber: who.phoneNumber } : {}),
      };
      const selfie = index % 11 === 10 ? people[(index + 1) % flows]!.face : who.face;
      let view: FlowView = await verikit.start({
        kind: 'identity',
        idType,
        number: who.number,
        steps: ['match', 'otp', 'face'],
        claims,
      });
      seen.push(view);
      for (let turn = 0; turn < 4 && !view.done; turn += 1) {
        if (view.status === 'awaiting-code')
          view = await verikit.send(view.id, { type: 'submit-code', code: otp.lastCode('+2348000000000')! });
        else if (view.status === 'awaiting-selfie')
          view = await verikit.send(view.id, { type: 'submit-selfie', image: selfie });
        else break;
        seen.push(view);
      }
      if (view.status === 'verified') {
        outcomes.verified += 1;
        const verification = await verikit.verification(view.id);
        if (verification.steps?.some((step) => step.by === 'dojah')) outcomes.byDojah += 1;
        const proof = await verikit.issueProof(view.id);
        seen.push(verification, proof, await verikit.redeemProof(proof.token, { idType, number: who.number }));
      } else if (view.status === 'failed') outcomes.failed += 1;
      else outcomes.other += 1;
    }

    // What must not leak: each person's number, names, date of birth and phone, and their photo's random bytes (as base64 and
    // as hex), the JPEG marker left out since every selfie shares it.
    const needles = people.flatMap(({ face, ...who }) => {
      const photo = Buffer.from(face.subarray(4));
      return [...Object.values(who), photo.toString('base64'), photo.toString('hex')];
    });
    const haystacks = {
      logs: JSON.stringify(lines),
      events: JSON.stringify(events),
      viewsAndProofs: JSON.stringify(seen),
    };
    // Case aside: the vendors' records write names in capitals.
    const found = Object.entries(haystacks).flatMap(([where, text]) => {
      const lower = text.toLowerCase();
      return needles
        .filter((needle) => lower.includes(needle.toLowerCase()))
        .map((needle) => `${where}: ${needle.slice(0, 4)}…`);
    });
    console.info(
      `vendor leak scan: ${flows} ladders (${outcomes.verified} verified, ${outcomes.byDojah} of them through Dojah, ` +
        `${outcomes.failed} failed, ${outcomes.other} other); ${lines.length} log lines, ${events.length} events, ` +
        `${seen.length} views, verifications and proofs searched for ${needles.length} values: ${found.length} found`,
    );
    // The search finds what is there: the vendors received the numbers, the claims and the selfies.
    const received = JSON.stringify([vendors.smileId.requests, vendors.dojah.requests], (_key, value: unknown) =>
      value instanceof Uint8Array ? Buffer.from(value).toString('base64') : value,
    );
    expect(needles.filter((needle) => received.includes(needle)).length).toBeGreaterThan(flows * 3);
    expect(outcomes.verified).toBeGreaterThan(flows / 2);
    expect(outcomes.byDojah).toBeGreaterThan(flows / 5);
    expect(outcomes.failed).toBeGreaterThan(flows / 10);
    expect(lines.length).toBeGreaterThan(flows);
    expect(found).toEqual([]);
  }, 600_000);
});
