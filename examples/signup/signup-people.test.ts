import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { defaultTestIdentities } from '@verikit/gateway/fake';
import { freshPhoneNumber } from '@verikit/testing';
import {
  browserTestsSkipReason,
  digits,
  fastClock,
  flowStatus,
  focused,
  recordEvents,
  recordSpoken,
  screenshot,
  slow3g,
  spoken,
  startHarness,
  startPhoneVerification,
  testPolicies,
  typeCode,
  useBrowserSuite,
  wrongCode,
  type SignupHarness,
} from './signup-browser.fixtures.js';
import { expectUsableScreen } from '../../scripts/page-checks.js';

// The signup page as people meet it (issue 17): correcting a code, a slow network, the keyboard and a
// screen reader (focus, the live region), a server restart, a fast device clock, another language.
const skipReason = browserTestsSkipReason();
const [bvnIdentity] = defaultTestIdentities.filter((identity) => identity.idType === 'bvn');

describe.skipIf(skipReason !== undefined)('the signup page for people (Chromium)', () => {
  const suite = useBrowserSuite();
  let harness: SignupHarness;
  let page: Page;
  /** The signup page in a new context, its live region recorded. */
  async function open(options: { locale?: string; init?: string } = {}): Promise<Page> {
    harness = suite.harness;
    const init = options.init === undefined ? [recordSpoken] : [recordSpoken, options.init];
    page = await suite.open({ locale: options.locale, init });
    return page;
  }

  it('a digit typed over the same digit moves on: fixing a typo verifies, with one submit', async () => {
    await open();
    const events = recordEvents(page);
    const phoneNumber = freshPhoneNumber();
    await startPhoneVerification(page, phoneNumber, 'phone');
    await flowStatus(page, 'awaiting-code');
    const code = harness.sandbox.lastCode(phoneNumber)!;
    const typo = code[1] === '9' ? '8' : '9';
    await typeCode(page, `${code[0]}${typo}${code.slice(2, 5)}`);
    // Back to the first digit, the same digit again, then the right second one.
    await page.getByRole('textbox', { name: 'Digit 1 of 6' }).click();
    await page.keyboard.type(code[0]!);
    expect(await focused(page)).toBe('Digit 2 of 6');
    await page.keyboard.type(code[1]!);
    expect(await digits(page)).toBe(code.slice(0, 5));
    // A click past the digits lands on the first empty field; the last digit completes the code.
    await page.getByRole('textbox', { name: 'Digit 6 of 6' }).click();
    expect(await focused(page)).toBe('Digit 6 of 6');
    await page.keyboard.type(code[5]!);
    await flowStatus(page, 'verified');
    expect(events).toEqual(['submit-code']);
  }, 30_000);

  it('on Slow 3G a code is sent once: the fields are disabled with "Checking…" until the answer, then focus is on the first digit', async () => {
    await open();
    const events = recordEvents(page);
    const phoneNumber = freshPhoneNumber();
    await startPhoneVerification(page, phoneNumber, 'phone');
    await flowStatus(page, 'awaiting-code');
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', slow3g);
    const wrong = wrongCode(harness.sandbox.lastCode(phoneNumber));
    await typeCode(page, wrong);
    // The user keeps typing and presses Enter while the code is on its way: nothing more is sent.
    await page.keyboard.type('123456');
    await page.keyboard.press('Enter');
    await page.locator('#code-help', { hasText: 'Checking…' }).waitFor();
    expect(await page.getByRole('textbox', { name: 'Digit 1 of 6' }).isDisabled()).toBe(true);
    await screenshot(page, 'checking');
    await expectUsableScreen(page, 'checking');
    await page
      .locator('#code-help', { hasText: `That code is not correct. ${testPolicies.maxAttempts - 1} attempts left.` })
      .waitFor({ timeout: 30_000 });
    expect(events).toEqual(['submit-code']);
    expect(await digits(page)).toBe('');
    // Focus returns, and the answer is spoken, in effects after the render that shows it.
    await expect.poll(() => focused(page)).toBe('Digit 1 of 6');
    await expect
      .poll(async () => (await spoken(page)).at(-1))
      .toBe(`That code is not correct. ${testPolicies.maxAttempts - 1} attempts left.`);
    expect(await spoken(page)).toContain('Checking…');
  }, 60_000);

  it('focus and the one live region after each step: code, wrong code, verified, BVN form, BVN code, verified, welcome', async () => {
    await open();
    expect(
      await page.locator('[aria-live], [role="status"], [role="log"], [role="timer"], [role="marquee"]').count(),
    ).toBe(1);
    // Polite: it waits for the screen reader to finish, never interrupts.
    expect(await page.locator('#announcer').getAttribute('aria-live')).toBe('polite');
    const phoneNumber = freshPhoneNumber();
    await startPhoneVerification(page, phoneNumber, 'phone');
    await flowStatus(page, 'awaiting-code');
    expect(await focused(page)).toBe('Digit 1 of 6');
    await expect.poll(async () => (await spoken(page)).at(-1)).toMatch(/^We sent a 6-digit code to \+234\*+\d{4}\.$/);

    await typeCode(page, wrongCode(harness.sandbox.lastCode(phoneNumber)));
    await page
      .locator('main')
      .getByText(`That code is not correct. ${testPolicies.maxAttempts - 1} attempts left.`)
      .waitFor();
    await expect.poll(() => focused(page)).toBe('Digit 1 of 6');
    await expect
      .poll(async () => (await spoken(page)).at(-1))
      .toBe(`That code is not correct. ${testPolicies.maxAttempts - 1} attempts left.`);

    await typeCode(page, harness.sandbox.lastCode(phoneNumber)!);
    await flowStatus(page, 'verified');
    await expect.poll(() => focused(page)).toBe('h2: ✓ Phone number verified');
    await expect.poll(async () => (await spoken(page)).at(-1)).toBe('Verified.');

    await page.getByRole('button', { name: 'Continue' }).click();
    await page.locator('form[data-status="bvn-form"]').waitFor();
    // A new screen's heading takes focus in an effect, after the render the wait saw.
    await expect.poll(() => focused(page)).toBe('h2: Your BVN');
    await expectUsableScreen(page, 'BVN form');
    await page.getByLabel('Bank Verification Number').fill(bvnIdentity!.number);
    await page.getByRole('button', { name: 'Verify my BVN' }).click();
    await flowStatus(page, 'awaiting-code');
    expect(await focused(page)).toBe('Digit 1 of 6');
    await typeCode(page, harness.sandbox.lastCode(bvnIdentity!.phoneNumber)!);
    await flowStatus(page, 'verified');
    await expect.poll(() => focused(page)).toBe('h2: ✓ BVN verified');
    await page.getByRole('button', { name: 'Create my account' }).click();
    await page.locator('[data-status="welcome"]').waitFor();
    await expect.poll(() => focused(page)).toBe('h2: Welcome to Acme!');

    // The countdowns ticked all along (the resend cooldown, the expiry): none of their seconds was spoken.
    const said = await spoken(page);
    expect(said.filter((text) => /Resend code in|Expires in|\d:\d\d/.test(text))).toEqual([]);
    expect(said.length).toBeLessThanOrEqual(12);
    expect(await page.locator('[aria-live], [role="status"]').count()).toBe(1);
  }, 60_000);

  it('locked: focus on "Too many wrong codes", spoken once; Start again goes back to the number, focused', async () => {
    await open();
    const phoneNumber = freshPhoneNumber();
    await startPhoneVerification(page, phoneNumber, 'phone');
    await flowStatus(page, 'awaiting-code');
    const wrong = wrongCode(harness.sandbox.lastCode(phoneNumber));
    for (let left = testPolicies.maxAttempts - 1; left >= 1; left -= 1) {
      await typeCode(page, wrong);
      await page.locator('#code-help', { hasText: `${left === 1 ? '1 attempt' : `${left} attempts`} left.` }).waitFor();
    }
    await typeCode(page, wrong);
    await flowStatus(page, 'locked');
    await expect.poll(() => focused(page)).toBe('h2: Too many wrong codes');
    await expect
      .poll(async () => (await spoken(page)).at(-1))
      .toBe('Too many wrong codes. This verification is locked. Start again in a little while.');
    await page.getByRole('button', { name: 'Start again' }).click();
    await page.locator('form[data-status="phone-form"]').waitFor();
    await expect.poll(() => focused(page)).toBe('h2: Your phone number');
  }, 30_000);

  it('never shows developer text: a provider failure and a refused number are shown from their message ids; a send that never left is retried at once', async () => {
    await open();
    await startPhoneVerification(page, '+2348012345678901234', 'phone');
    const refused = page.getByRole('alert');
    await refused.waitFor();
    expect(await refused.textContent()).not.toMatch(/must|digits after|E\.164/);
    await expectUsableScreen(page, 'phone form, number refused');
    // The sandbox's number whose sends fail with a server error.
    await page.getByLabel('Phone number').fill('+2348030000002');
    await page.getByRole('button', { name: 'Verify my number' }).click();
    await flowStatus(page, 'send-failed');
    await expect.poll(() => focused(page)).toBe('h2: The code could not be sent');
    // The provider answered 500, nothing was delivered: the user may try again at once, not after the cooldown.
    const retry = page.getByRole('button', { name: /^Resend code/ });
    expect(await retry.textContent()).toBe('Resend code');
    expect(await retry.getAttribute('aria-disabled')).toBe('false');
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).not.toMatch(/gateway|HTTP \d{3}|phone\.send|provider_/);
    expect(text).toMatch(/The service is unavailable|Something went wrong|The service refused/);
    await screenshot(page, 'send-failed');
    await expectUsableScreen(page, 'send failed');
  }, 30_000);

  it('in French: the page, the parts and the errors speak French', async () => {
    await open({ locale: 'fr-FR' });
    expect(await page.evaluate('document.documentElement.lang')).toBe('fr');
    await page.getByRole('heading', { name: 'Ouvrez votre compte Acme' }).waitFor();
    expect(await page.title()).toBe('Ouvrez votre compte Acme');
    await page.getByLabel('Numéro de téléphone').fill('+2341');
    await page.getByRole('button', { name: 'Vérifier mon numéro' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toMatch(/num[ée]ro|Saisissez|Vérifiez/);
    await expectUsableScreen(page, 'French phone form, number refused');
    const phoneNumber = freshPhoneNumber();
    await page.getByLabel('Numéro de téléphone').fill(phoneNumber);
    await page.getByRole('button', { name: 'Vérifier mon numéro' }).click();
    await flowStatus(page, 'awaiting-code');
    await page.getByRole('group', { name: 'Code de vérification' }).waitFor();
    await page.getByRole('textbox', { name: 'Chiffre 1 sur 6' }).click();
    await page.keyboard.type(wrongCode(harness.sandbox.lastCode(phoneNumber)));
    await page.locator('#code-help', { hasText: "Ce code n'est pas correct. Il reste 2 essais." }).waitFor();
    expect(await page.getByRole('button', { name: /^Renvoyer le code/ }).count()).toBe(1);
    await expect.poll(async () => (await spoken(page)).at(-1)).toBe("Ce code n'est pas correct. Il reste 2 essais.");
    await screenshot(page, 'fr-wrong-code');
    await expectUsableScreen(page, 'French wrong code');
  }, 30_000);

  it('a device clock 5 minutes fast: the resend countdown runs on the server clock, and each deadline is read once', async () => {
    await open({ init: fastClock(300_000) });
    expect((await page.evaluate('Date.now() - performance.timeOrigin - performance.now()')) as number).toBeGreaterThan(
      250_000,
    );
    const reads: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'GET' && /\/api\/verify\/flows\/[^/]+$/.test(new URL(request.url()).pathname))
        reads.push(request.url());
    });
    const phoneNumber = freshPhoneNumber();
    // The start's answer is read on its way to the page (as signup-ussd-tabs.test.ts does), not from the browser
    // afterwards: there its body may be gone ("No data found for resource"), even read inside waitForResponse's
    // predicate, as it was twice on a loaded machine.
    let startAnswer: { resendAvailableAt: number } | undefined;
    await page.route('**/api/verify/flows', async (route) => {
      if (route.request().method() !== 'POST') return route.fallback();
      const response = await route.fetch();
      startAnswer = (await response.json()) as { resendAvailableAt: number };
      await route.fulfill({ response });
    });
    await startPhoneVerification(page, phoneNumber, 'phone');
    await expect.poll(() => startAnswer, { timeout: 20_000 }).toBeDefined();
    const { resendAvailableAt } = startAnswer as { resendAvailableAt: number };
    await flowStatus(page, 'awaiting-code');
    const resend = page.getByRole('button', { name: /^Resend code/ });
    const label = await resend.textContent();
    const disabled = await resend.getAttribute('aria-disabled');
    // Read a second or more before the cooldown's end on the server's clock (this machine's), the page counts down,
    // whatever its own clock says. Checked against when it was read, not against how soon: a loaded machine may show
    // the page only once the cooldown is over, and then an open button is right.
    if (Date.now() < resendAvailableAt - 1000) {
      expect(label).toMatch(/^Resend code in 0:0[1-6]$/);
      expect(disabled).toBe('true');
    }
    await page.locator('button[aria-disabled="false"]', { hasText: /^Resend code$/ }).waitFor();
    await expect.poll(async () => (await spoken(page)).at(-1)).toBe('You can ask for a new code now.');
    // The cooldown's deadline, read once; the retries for a clock estimate that was early send no more.
    await page.waitForTimeout(2_500);
    expect(reads.length).toBeLessThanOrEqual(2);
  }, 30_000);
});

describe.skipIf(skipReason !== undefined)('the signup page on a server of its own (Chromium)', () => {
  const suite = useBrowserSuite({ harness: false });

  it('after a server restart the flow is gone: the page says it ended, focuses that, and offers Start again', async () => {
    const first = await startHarness();
    let second: SignupHarness | undefined;
    try {
      const page = await suite.open({ url: first.server.url, timeoutMs: 20_000 });
      const phoneNumber = freshPhoneNumber();
      await startPhoneVerification(page, phoneNumber, 'phone');
      await flowStatus(page, 'awaiting-code');
      const port = new URL(first.server.url).port;
      await first.server.close();
      second = await startHarness({ pageDir: first.pageDir, env: { PORT: port } });
      await flowStatus(page, 'ended');
      await page
        .locator('main')
        .getByText('It expired or can no longer be used. Start again to get a new code.')
        .waitFor();
      await expect
        .poll(async () => (await page.evaluate('document.activeElement?.textContent')) as string)
        .toBe('This verification has ended');
      expect(await page.locator('.otp input').count()).toBe(0);
      await screenshot(page, 'ended');
      await expectUsableScreen(page, 'ended');
      await page.getByRole('button', { name: 'Start again' }).click();
      await page.locator('form[data-status="phone-form"]').waitFor();
    } finally {
      await second?.close();
      await first.close();
    }
  }, 60_000);

  it('an expired code: focus on "The code expired", a new code offered; a send with no answer may still arrive', async () => {
    // A send gets 2 s: the sandbox's slow number (3 s) has no answer by then, which the page calls an unknown outcome.
    const harness = await startHarness({ env: { VERIKIT_CODE_TTL_MS: '2500', VERIKIT_EFFECT_TIMEOUT_MS: '2000' } });
    try {
      const page = await suite.open({ url: harness.server.url, timeoutMs: 20_000 });
      await startPhoneVerification(page, freshPhoneNumber(), 'phone');
      await flowStatus(page, 'expired');
      await expect
        .poll(async () => (await page.evaluate('document.activeElement?.textContent')) as string)
        .toBe('The code expired');
      await page.getByRole('button', { name: /^Get a new code/ }).waitFor();
      await screenshot(page, 'expired');
      await expectUsableScreen(page, 'expired');

      const unknown = await suite.open({ url: harness.server.url, timeoutMs: 20_000 });
      await startPhoneVerification(unknown, '+2348030000004', 'phone');
      await flowStatus(unknown, 'send-failed');
      await unknown.getByRole('heading', { name: 'We could not confirm the code was sent' }).waitFor();
      await expectUsableScreen(unknown, 'outcome unknown');
    } finally {
      await harness.close();
    }
  }, 60_000);

  it('with VERIKIT_MAX_ATTEMPTS=7 the sandbox allows as many: the right code after six wrong ones verifies', async () => {
    const harness = await startHarness({ env: { VERIKIT_MAX_ATTEMPTS: '7' } });
    try {
      const page = await suite.open({ url: harness.server.url });
      const phoneNumber = freshPhoneNumber();
      await startPhoneVerification(page, phoneNumber, 'phone');
      await flowStatus(page, 'awaiting-code');
      const code = harness.sandbox.lastCode(phoneNumber)!;
      for (let left = 6; left >= 1; left -= 1) {
        await typeCode(page, wrongCode(code));
        await page
          .locator('#code-help', { hasText: `${left === 1 ? '1 attempt' : `${left} attempts`} left.` })
          .waitFor();
      }
      await typeCode(page, code);
      await flowStatus(page, 'verified');
    } finally {
      await harness.close();
    }
  }, 60_000);
});
