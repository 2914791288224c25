import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { verifyTwilioSignature } from './twilio-signature.js';

interface SignatureCase {
  readonly name: string;
  readonly signedUrl: string;
  readonly url: string;
  readonly body: string;
  readonly signature: string;
  readonly valid: boolean;
}

/** Signatures and verdicts computed once by twilio-node (conformance/README.md says how, with its version and date). */
const fixture = JSON.parse(
  readFileSync(new URL('../conformance/twilio-signature.fixture.json', import.meta.url), 'utf8'),
) as { version: string; authToken: string; cases: readonly SignatureCase[] };

describe(`Twilio signatures agree with twilio-node ${fixture.version}'s validateRequest`, () => {
  it('has cases of each kind: port variants, repeated parameters, refusals', () => {
    expect(fixture.cases.length).toBeGreaterThanOrEqual(20);
    expect(fixture.cases.some((each) => each.signedUrl !== each.url && each.valid)).toBe(true);
    expect(fixture.cases.some((each) => !each.valid)).toBe(true);
  });
  it.each(fixture.cases)('$name → $valid', (each) => {
    const verdict = verifyTwilioSignature({
      authToken: fixture.authToken,
      url: each.url,
      body: each.body,
      signature: each.signature,
    });
    expect(verdict).toBe(each.valid);
  });
});
