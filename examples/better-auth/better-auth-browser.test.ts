import { existsSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { defaultTestIdentities } from '@verikit/gateway/fake';
import { freshPhoneNumber } from '@verikit/testing';
import { chromiumArgs, chromiumPath } from '../../scripts/chromium.js';
import { expectUsableScreen, firstLoadOnSlow3g } from '../../scripts/page-checks.js';
import { startExample, type ExampleServer } from './server/start-server.js';

// The example in a real browser: Debian's Chromium driven by playwright-core, against the example's own server
// (Better Auth with the verikit plugin on SQLite, the gateway sandbox over HTTP).
const skipReason =
  existsSync(chromiumPath) || process.env.CI === 'true'
    ? undefined
    : `${chromiumPath} is missing (apt-get install chromium)`;
if (skipReason !== undefined) console.warn(`skipping the Better Auth browser test: ${skipReason}`);

const bvn = defaultTestIdentities.find((identity) => identity.idType === 'bvn');

/** What has focus: an element's tag and text. */
const focused = (page: Page) =>
  page.evaluate('document.activeElement.tagName.toLowerCase() + ": " + document.activeElement.textContent');

async function verifyWithCode(page: Page, example: ExampleServer, phoneNumber: string) {
  await page.getByRole('heading', { name: 'Enter the code' }).waitFor();
  await page.getByLabel('The code we sent').fill(example.sandbox.lastCode(phoneNumber)!);
  await page.getByRole('button', { name: 'Verify', exact: true }).click();
}

describe.skipIf(skipReason !== undefined)('Better Auth example in Chromium', () => {
  let example: ExampleServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [example, browser] = await Promise.all([
      startExample(0),
      chromium.launch({ executablePath: chromiumPath, args: [...chromiumArgs] }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await example?.close();
  });
  afterEach(() => Promise.all(contexts.splice(0).map((context) => context.close())));

  async function open(width = 360): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height: 740 } });
    contexts.push(context);
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    await page.goto(example.url);
    return page;
  }

  it('signs up by phone, attaches a BVN shown masked (remembered after a reload), signs out, and signs in again as the same user', async () => {
    const phoneNumber = freshPhoneNumber();
    const page = await open();
    await page.getByRole('heading', { name: 'Your phone number' }).waitFor();
    await expectUsableScreen(page, 'Better Auth phone form');
    await page.getByLabel('Phone number (with country code)').fill(phoneNumber);
    await page.getByRole('button', { name: 'Send a code' }).click();
    await page.getByRole('heading', { name: 'Enter the code' }).waitFor();
    expect(await focused(page)).toBe('h2: Enter the code');
    await expectUsableScreen(page, 'Better Auth code');
    await verifyWithCode(page, example, phoneNumber);
    await page.getByRole('heading', { name: 'Signed in' }).waitFor();
    expect(await focused(page)).toBe('h2: Signed in');
    expect(await page.locator('#user-phone').textContent()).toBe(phoneNumber);
    // onSignIn (server/auth.ts) welcomed the new user.
    expect(example.sandbox.lastMessage(phoneNumber)).toContain('Welcome to Acme!');
    await expectUsableScreen(page, 'Better Auth signed in');

    await page.getByLabel('Your BVN (11 digits)').fill(bvn!.number);
    await page.getByRole('button', { name: 'Verify my BVN' }).click();
    await page.getByRole('heading', { name: 'Enter the code' }).waitFor();
    // The BVN's code form comes after "Signed in" and the BVN form, in reading order.
    const order = await page.evaluate(`[...document.querySelectorAll('h2:not([hidden])')]
      .filter((h) => h.offsetParent !== null).map((h) => h.textContent)`);
    expect(order).toEqual(['Signed in', 'Add your BVN', 'Enter the code', 'Change your phone number']);
    await expectUsableScreen(page, 'Better Auth BVN code');
    await verifyWithCode(page, example, bvn!.phoneNumber);
    await page.getByRole('heading', { name: 'BVN verified' }).waitFor();
    expect(await focused(page)).toBe('h2: BVN verified');
    expect(await page.locator('#bvn-masked').textContent()).toBe(`*******${bvn!.number.slice(-4)}`);
    expect(await page.content()).not.toContain(bvn!.number);
    await expectUsableScreen(page, 'Better Auth BVN verified');
    expect(await page.locator('#status').textContent()).toBe('BVN verified');

    // A reload asks the server: still signed in, the BVN still attached, nothing offered again.
    const sent = example.sandbox.outbox.length;
    await page.reload();
    await page.getByRole('heading', { name: 'BVN verified' }).waitFor();
    expect(await page.getByLabel('Your BVN (11 digits)').isVisible()).toBe(false);
    expect(example.sandbox.outbox.length).toBe(sent);
    const readSession = () =>
      fetch('/api/auth/get-session').then(
        (response) =>
          response.json() as Promise<{ user: { id: string; phoneNumber: string }; session: { id: string } }>,
      );
    const first = await page.evaluate(readSession);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Your phone number' }).waitFor();
    expect(await focused(page)).toBe('h2: Your phone number');
    expect(await page.evaluate(readSession)).toBeNull();

    // The same number signs in to the same account.
    await page.getByLabel('Phone number (with country code)').fill(phoneNumber);
    await page.getByRole('button', { name: 'Send a code' }).click();
    await verifyWithCode(page, example, phoneNumber);
    await page.getByRole('heading', { name: 'Signed in' }).waitFor();
    const session = await page.evaluate(readSession);
    expect([session.user.id, session.user.phoneNumber]).toEqual([first.user.id, phoneNumber]);
    expect(session.session.id).not.toBe(first.session.id);
    // Several verifications and the sweeps on a loaded 2-core machine: the test has a bound of its own (its steps
    // keep their 10 s each; nothing here measures speed).
  }, 90_000);

  it('an email user adds a phone (one account), changes it (the old number told), signs in by phone to the same account; a number on another account is refused (at 320 px)', async () => {
    const [phoneNumber, newNumber] = [freshPhoneNumber(), freshPhoneNumber()];
    const email = `ada-${phoneNumber.slice(-7)}@example.com`;
    const page = await open(320);
    await page.getByRole('heading', { name: 'Or use your email' }).waitFor();
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password (8 characters or more)').fill('a long enough password');
    await page.getByRole('button', { name: 'Create an account' }).click();
    await page.getByRole('heading', { name: 'Signed in' }).waitFor();
    expect(await focused(page)).toBe('h2: Signed in');
    expect(await page.locator('#user-email').textContent()).toBe(email);
    expect(await page.locator('#user-phone-line').isVisible()).toBe(false);
    await page.getByRole('heading', { name: 'Add your phone number' }).waitFor();
    await expectUsableScreen(page, 'Better Auth email user, no phone');
    const readSession = () =>
      fetch('/api/auth/get-session').then(
        (response) =>
          response.json() as Promise<{ user: { id: string; email: string; phoneNumber: string | null } } | null>,
      );
    const emailUser = (await page.evaluate(readSession))!.user;
    expect(emailUser.phoneNumber).toBeNull();

    // Add a phone: its code form comes after the form that asked for it; the account keeps its id and email.
    await page.getByLabel('Number to add (with country code)').fill(phoneNumber);
    await page.getByRole('button', { name: 'Verify this number' }).click();
    await page.getByRole('heading', { name: 'Enter the code' }).waitFor();
    await expectUsableScreen(page, 'Better Auth email user, phone code');
    await verifyWithCode(page, example, phoneNumber);
    await page.getByRole('heading', { name: 'Change your phone number' }).waitFor();
    expect(await page.locator('#user-phone').textContent()).toBe(phoneNumber);
    expect(await page.locator('#status').textContent()).toBe('Phone number added');
    expect(await focused(page)).toBe('h2: Signed in');
    expect((await page.evaluate(readSession))!.user).toMatchObject({ id: emailUser.id, email, phoneNumber });
    await expectUsableScreen(page, 'Better Auth email user with a phone');
    // A link is no sign-up: no welcome SMS (that is for new users signing up by phone).
    expect(example.sandbox.outbox.filter((message) => message.to === phoneNumber)).toHaveLength(1);

    // Change it: the new number verified, the old one told once.
    await page.getByLabel('New number (with country code)').fill(newNumber);
    await page.getByRole('button', { name: 'Verify this number' }).click();
    await verifyWithCode(page, example, newNumber);
    await page.locator('#user-phone', { hasText: newNumber }).waitFor();
    expect(await page.locator('#status').textContent()).toBe('Phone number changed');
    expect(example.sandbox.lastMessage(phoneNumber)).toContain('The phone number on your account was changed');
    expect((await page.evaluate(readSession))!.user).toMatchObject({ id: emailUser.id, phoneNumber: newNumber });

    // Signed out, the new number signs in to the same account, email and all.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Your phone number' }).waitFor();
    await page.getByLabel('Phone number (with country code)').fill(newNumber);
    await page.getByRole('button', { name: 'Send a code' }).click();
    await verifyWithCode(page, example, newNumber);
    await page.getByRole('heading', { name: 'Signed in' }).waitFor();
    expect(await page.locator('#user-email').textContent()).toBe(email);
    expect((await page.evaluate(readSession))!.user.id).toBe(emailUser.id);

    // Another email user cannot add that number: refused from its message id, the field marked; nothing changes.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Or use your email' }).waitFor();
    await page.getByLabel('Email', { exact: true }).fill(`grace-${newNumber.slice(-7)}@example.com`);
    await page.getByLabel('Password (8 characters or more)').fill('another long password');
    await page.getByRole('button', { name: 'Create an account' }).click();
    await page.getByRole('heading', { name: 'Add your phone number' }).waitFor();
    const field = page.getByLabel('Number to add (with country code)');
    await field.fill(newNumber);
    await page.getByRole('button', { name: 'Verify this number' }).click();
    await verifyWithCode(page, example, newNumber);
    const refused = page.locator('#link-phone-error');
    await refused.waitFor();
    expect(await refused.textContent()).toBe('This phone number is already on another account.');
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#user-phone-line').isVisible()).toBe(false);
    expect((await page.evaluate(readSession))!.user.phoneNumber).toBeNull();
    await expectUsableScreen(page, 'Better Auth number on another account');
  }, 120_000);

  it('a double click on "Send a code" sends one SMS', async () => {
    const phoneNumber = freshPhoneNumber();
    const page = await open();
    await page.getByLabel('Phone number (with country code)').fill(phoneNumber);
    await page.getByRole('button', { name: 'Send a code' }).dblclick();
    await page.getByRole('heading', { name: 'Enter the code' }).waitFor();
    await page.getByRole('button', { name: 'Send a code' }).click();
    await page.getByRole('heading', { name: 'Enter the code' }).waitFor();
    expect(example.sandbox.outbox.filter((message) => message.to === phoneNumber)).toHaveLength(1);
  });

  it('refused fields are shown from message ids and marked (aria-invalid, aria-describedby); never developer text', async () => {
    const page = await open();
    const phone = page.getByLabel('Phone number (with country code)');
    await phone.fill('08012345678');
    await page.getByRole('button', { name: 'Send a code' }).click();
    const phoneError = page.locator('#phone-error');
    await phoneError.waitFor();
    expect(await phoneError.textContent()).toBe('Enter the number with its country code, such as +234.');
    expect(await phone.getAttribute('aria-invalid')).toBe('true');
    expect(await phone.getAttribute('aria-describedby')).toBe('phone-error');
    expect(await page.locator('main').textContent()).not.toMatch(/phoneNumber|must start/);
    await expectUsableScreen(page, 'Better Auth refused number');

    const phoneNumber = freshPhoneNumber();
    await phone.fill(phoneNumber);
    await page.getByRole('button', { name: 'Send a code' }).click();
    await verifyWithCode(page, example, phoneNumber);
    await page.getByRole('heading', { name: 'Signed in' }).waitFor();
    const field = page.getByLabel('Your BVN (11 digits)');
    await field.fill('1234');
    await page.getByRole('button', { name: 'Verify my BVN' }).click();
    const bvnError = page.locator('#bvn-error');
    await bvnError.waitFor();
    expect(await bvnError.textContent()).toBe(
      'Check the number: a BVN or NIN has 11 digits, a virtual NIN 16 characters.',
    );
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await field.getAttribute('aria-describedby')).toBe('bvn-error');
    await expectUsableScreen(page, 'Better Auth refused BVN');
  }, 30_000);

  it('on Slow 3G the page is one compressed answer (the figure is printed, not asserted)', async () => {
    // The form is ready once the page's script has put its words in: the button reads "Send a code" from then on.
    const load = await firstLoadOnSlow3g(browser, example.url, '#phone-form button[data-ready]');
    console.log(
      `Better Auth on Slow 3G: form on screen ${load.formAt} ms, ${load.requests} request(s), ${load.bytes} B`,
    );
    expect([load.encoding, load.requests]).toEqual(['br', 1]);
  }, 90_000);
});
