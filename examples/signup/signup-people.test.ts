import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { defaultTestIdentities } from '@verikit/gateway/fake';
import { freshPhoneNumber } from '@verikit/testing';
import {
  browserTestsSkipReason,
  flowStatus,
  launchChromium,
  screenshot,
  startHarness,
  startPhoneVerification,
  testPolicies,
  typeCode,
  wrongCode,
  type SignupHarness,
} from './signup-browser.fixtures.js';

// The signup page as people meet it (issue 17): correcting a code, a slow network, the keyboard and a
// screen reader (focus, the live region), a server restart, a fast device clock, another language.
const skipReason = browserTestsSkipReason();
const [bvnIdentity] = defaultTestIdentities.filter((identity) => identity.idType === 'bvn');

/** Chrome DevTools' "Slow 3G" preset, as CDP takes it. */
const slow3g = { offline: false, latency: 2000, downloadThroughput: 50_000, uploadThroughput: 50_000 };

/** Records every text the page's live region speaks, from the first render. */
const recordSpoken = `
  window.__spoken = [];
  new MutationObserver(() => {
    const region = document.getElementById('announcer');
    const text = region?.textContent ?? '';
    if (region !== null && text !== '' && text !== window.__lastSpoken) window.__spoken.push(text);
    window.__lastSpoken = text;
  }).observe(document, { subtree: true, childList: true, characterData: true });
`;

async function spoken(page: Page): Promise<string[]> {
  return (await page.evaluate('window.__spoken')) as string[];
}

/** What has focus: a field's accessible name, or an element's tag and text. */
async function focused(page: Page): Promise<string> {
  return (await page.evaluate(
    `(() => { const e = document.activeElement; return e === null ? '' : (e.getAttribute('aria-label') ?? e.tagName.toLowerCase() + ': ' + e.textContent); })()`,
  )) as string;
}

/** The types of the events the page sent. */
function recordEvents(page: Page): string[] {
  const events: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().endsWith('/events'))
      events.push((JSON.parse(request.postData() ?? '{}') as { type: string }).type);
  });
  return events;
}

async function digits(page: Page): Promise<string> {
  return (await page.evaluate(
    `[...document.querySelectorAll('.otp input')].map((input) => input.value).join('')`,
  )) as string;
}

describe.skipIf(skipReason !== undefined)('the signup page for people (Chromium)', () => {
  let harness: SignupHarness;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    [harness, browser] = await Promise.all([startHarness(), launchChromium()]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await harness?.close();
  });
  async function open(url: string, options: { locale?: string; init?: string } = {}): Promise<Page> {
    context = await browser.newContext({ viewport: { width: 520, height: 760 }, locale: options.locale ?? 'en-GB' });
    context.setDefaultTimeout(15_000);
    await context.addInitScript(recordSpoken);
    if (options.init !== undefined) await context.addInitScript(options.init);
    page = await context.newPage();
    await page.goto(url);
    return page;
  }
  beforeEach(() => {
    context = undefined as unknown as BrowserContext;
  });
  afterEach(async () => {
    await context?.close();
  });

  it('a digit typed over the same digit moves on: fixing a typo verifies, with one submit', async () => {
    await open(harness.server.url);
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
    await open(harness.server.url);
    const events = recordEvents(page);
    const phoneNumber = freshPhoneNumber();
    await startPhoneVerification(page, phoneNumber, 'phone');
    await flowStatus(page, 'awaiting-code');
    const cdp = await context.newCDPSession(page);
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
    await page
      .locator('#code-help', { hasText: `That code is not correct. ${testPolicies.maxAttempts - 1} attempts left.` })
      .waitFor({ timeout: 30_000 });
    expect(events).toEqual(['submit-code']);
    expect(await digits(page)).toBe('');
    expect(await focused(page)).toBe('Digit 1 of 6');
    const said = await spoken(page);
    expect(said).toContain('Checking…');
    expect(said.at(-1)).toBe(`That code is not correct. ${testPolicies.maxAttempts - 1} attempts left.`);
  }, 60_000);

  it('focus and the one live region after each step: code, wrong code, verified, BVN form, BVN code, verified, welcome', async () => {
    await open(harness.server.url);
    expect(
      await page.locator('[aria-live], [role="status"], [role="log"], [role="timer"], [role="marquee"]').count(),
    ).toBe(1);
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
    expect((await spoken(page)).at(-1)).toBe(
      `That code is not correct. ${testPolicies.maxAttempts - 1} attempts left.`,
    );

    await typeCode(page, harness.sandbox.lastCode(phoneNumber)!);
    await flowStatus(page, 'verified');
    await expect.poll(() => focused(page)).toBe('h2: ✓ Phone number verified');
    await expect.poll(async () => (await spoken(page)).at(-1)).toBe('Verified.');

    await page.getByRole('button', { name: 'Continue' }).click();
    await page.locator('form[data-status="bvn-form"]').waitFor();
    expect(await focused(page)).toBe('h2: Your BVN');
    await page.getByLabel('Bank Verification Number').fill(bvnIdentity!.number);
    await page.getByRole('button', { name: 'Verify my BVN' }).click();
    await flowStatus(page, 'awaiting-code');
    expect(await focused(page)).toBe('Digit 1 of 6');
    await typeCode(page, harness.sandbox.lastCode(bvnIdentity!.phoneNumber)!);
    await flowStatus(page, 'verified');
    await expect.poll(() => focused(page)).toBe('h2: ✓ BVN verified');
    await page.getByRole('button', { name: 'Create my account' }).click();
    await page.locator('[data-status="welcome"]').waitFor();
    expect(await focused(page)).toBe('h2: Welcome to Acme!');

    // The countdowns ticked all along (the resend cooldown, the expiry): none of their seconds was spoken.
    const said = await spoken(page);
    expect(said.filter((text) => /Resend code in|Expires in|\d:\d\d/.test(text))).toEqual([]);
    expect(said.length).toBeLessThanOrEqual(12);
    expect(await page.locator('[aria-live], [role="status"]').count()).toBe(1);
  }, 60_000);

  it('locked: focus on "Too many wrong codes", spoken once; Start again goes back to the number, focused', async () => {
    await open(harness.server.url);
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
    expect(await focused(page)).toBe('h2: Your phone number');
  }, 30_000);

  it('never shows developer text: a provider failure and a refused number are shown from their message ids', async () => {
    await open(harness.server.url);
    await startPhoneVerification(page, '+2348012345678901234', 'phone');
    const refused = page.getByRole('alert');
    await refused.waitFor();
    expect(await refused.textContent()).not.toMatch(/must|digits after|E\.164/);
    // The sandbox's number whose sends fail with a server error.
    await page.getByLabel('Phone number').fill('+2348030000002');
    await page.getByRole('button', { name: 'Verify my number' }).click();
    await flowStatus(page, 'send-failed');
    await expect.poll(() => focused(page)).toBe('h2: The code could not be sent');
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).not.toMatch(/gateway|HTTP \d{3}|phone\.send|provider_/);
    expect(text).toMatch(/The service is unavailable|Something went wrong|The service refused/);
    await screenshot(page, 'send-failed');
  }, 30_000);

  it('in French: the page, the parts and the errors speak French', async () => {
    await open(harness.server.url, { locale: 'fr-FR' });
    expect(await page.evaluate('document.documentElement.lang')).toBe('fr');
    await page.getByRole('heading', { name: 'Ouvrez votre compte Acme' }).waitFor();
    await page.getByLabel('Numéro de téléphone').fill('+2341');
    await page.getByRole('button', { name: 'Vérifier mon numéro' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toMatch(/num[ée]ro|Saisissez|Vérifiez/);
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
  }, 30_000);

  it('a device clock 5 minutes fast: the resend countdown runs on the server clock, and each deadline is read once', async () => {
    const fastClock = `
      const RealDate = Date;
      const skew = 300000;
      class FastDate extends RealDate {
        constructor(...args) { if (args.length === 0) super(RealDate.now() + skew); else super(...args); }
        static now() { return RealDate.now() + skew; }
      }
      window.Date = FastDate;
    `;
    await open(harness.server.url, { init: fastClock });
    expect((await page.evaluate('Date.now() - performance.timeOrigin - performance.now()')) as number).toBeGreaterThan(
      250_000,
    );
    const reads: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'GET' && /\/api\/verify\/flows\/[^/]+$/.test(new URL(request.url()).pathname))
        reads.push(request.url());
    });
    const phoneNumber = freshPhoneNumber();
    await startPhoneVerification(page, phoneNumber, 'phone');
    await flowStatus(page, 'awaiting-code');
    const resend = page.getByRole('button', { name: /^Resend code/ });
    expect(await resend.textContent()).toMatch(/^Resend code in 0:0[1-3]$/);
    expect(await resend.getAttribute('aria-disabled')).toBe('true');
    await page.locator('button[aria-disabled="false"]', { hasText: /^Resend code$/ }).waitFor();
    await expect.poll(async () => (await spoken(page)).at(-1)).toBe('You can ask for a new code now.');
    // The cooldown's deadline, read once; the retries for a clock estimate that was early send no more.
    await page.waitForTimeout(2_500);
    expect(reads.length).toBeLessThanOrEqual(2);
  }, 30_000);
});

describe.skipIf(skipReason !== undefined)('the signup page when the flow is gone (Chromium)', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('after a server restart the flow is gone: the page says it ended, focuses that, and offers Start again', async () => {
    const first = await startHarness();
    let second: SignupHarness | undefined;
    const context = await browser.newContext({ viewport: { width: 520, height: 760 } });
    try {
      context.setDefaultTimeout(20_000);
      const page = await context.newPage();
      await page.goto(first.server.url);
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
      await page.getByRole('button', { name: 'Start again' }).click();
      await page.locator('form[data-status="phone-form"]').waitFor();
    } finally {
      await context.close();
      await second?.close();
      await first.close();
    }
  }, 60_000);

  it('an expired code: focus on "The code expired", a new code offered', async () => {
    const harness = await startHarness({ env: { VERIKIT_CODE_TTL_MS: '2500' } });
    const context = await browser.newContext({ viewport: { width: 520, height: 760 } });
    try {
      context.setDefaultTimeout(20_000);
      const page = await context.newPage();
      await page.goto(harness.server.url);
      await startPhoneVerification(page, freshPhoneNumber(), 'phone');
      await flowStatus(page, 'expired');
      await expect
        .poll(async () => (await page.evaluate('document.activeElement?.textContent')) as string)
        .toBe('The code expired');
      await page.getByRole('button', { name: /^Get a new code/ }).waitFor();
      await screenshot(page, 'expired');
    } finally {
      await context.close();
      await harness.close();
    }
  }, 60_000);
});
