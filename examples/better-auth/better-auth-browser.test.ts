import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { defaultTestIdentities } from '@verikit/gateway/fake';
import { freshPhoneNumber } from '@verikit/testing';
import { chromiumArgs, chromiumPath } from '../../scripts/chromium.js';
import { startExample, type ExampleServer } from './server/start-server.js';

// The example in a real browser: Debian's Chromium driven by playwright-core, against the example's own server
// (Better Auth with the verikit plugin on SQLite, the gateway sandbox over HTTP).
const skipReason =
  existsSync(chromiumPath) || process.env.CI === 'true'
    ? undefined
    : `${chromiumPath} is missing (apt-get install chromium)`;
if (skipReason !== undefined) console.warn(`skipping the Better Auth browser test: ${skipReason}`);

const bvn = defaultTestIdentities.find((identity) => identity.idType === 'bvn')!;

async function verifyWithCode(page: Page, example: ExampleServer, phoneNumber: string) {
  await page.getByText('We sent a code').waitFor();
  await page.getByLabel('The code we sent').fill(example.sandbox.lastCode(phoneNumber)!);
  await page.getByRole('button', { name: 'Verify', exact: true }).click();
}

describe.skipIf(skipReason !== undefined)('Better Auth example in Chromium', () => {
  let example: ExampleServer;
  let browser: Browser;

  beforeAll(async () => {
    [example, browser] = await Promise.all([
      startExample(0),
      chromium.launch({
        executablePath: chromiumPath,
        args: [...chromiumArgs],
      }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await example?.close();
  });

  it('signs up by phone, attaches a BVN shown masked, and signs in again as the same user', async () => {
    const phoneNumber = freshPhoneNumber();
    const context = await browser.newContext();
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    await page.goto(example.url);
    await page.getByLabel('Phone number (with country code)').fill(phoneNumber);
    await page.getByRole('button', { name: 'Send a code' }).click();
    await verifyWithCode(page, example, phoneNumber);
    await page.getByRole('heading', { name: 'Signed in' }).waitFor();
    expect(await page.locator('#user-phone').textContent()).toBe(phoneNumber);
    // onSignIn (server/auth.ts) welcomed the new user.
    expect(example.sandbox.lastMessage(phoneNumber)).toContain('Welcome to Acme!');

    await page.getByLabel('Your BVN (11 digits)').fill(bvn.number);
    await page.getByRole('button', { name: 'Verify my BVN' }).click();
    await verifyWithCode(page, example, bvn.phoneNumber);
    await page.getByText('BVN verified:').waitFor();
    expect(await page.locator('#bvn-masked').textContent()).toBe(`*******${bvn.number.slice(-4)}`);
    expect(await page.content()).not.toContain(bvn.number);
    const readSession = () =>
      fetch('/api/auth/get-session').then(
        (response) =>
          response.json() as Promise<{ user: { id: string; phoneNumber: string }; session: { id: string } }>,
      );
    const first = await page.evaluate(readSession);
    await context.close();

    // A new browser: no cookie, the same number signs in to the same account.
    const again = await browser.newContext();
    again.setDefaultTimeout(10_000);
    const second = await again.newPage();
    await second.goto(example.url);
    await second.getByLabel('Phone number (with country code)').fill(phoneNumber);
    await second.getByRole('button', { name: 'Send a code' }).click();
    await verifyWithCode(second, example, phoneNumber);
    await second.getByRole('heading', { name: 'Signed in' }).waitFor();
    const session = await second.evaluate(readSession);
    expect([session.user.id, session.user.phoneNumber]).toEqual([first.user.id, phoneNumber]);
    expect(session.session.id).not.toBe(first.session.id);
    await again.close();
    // Two browser contexts and three verifications: 16 s of vitest's default 20 s on a loaded 2-core machine, so the
    // test has a bound of its own (its steps keep their 10 s each; nothing here measures speed).
  }, 60_000);
});
