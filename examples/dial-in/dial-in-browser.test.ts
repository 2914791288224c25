import { existsSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { freshPhoneNumber } from '@verikit/testing';
import { chromiumArgs, chromiumPath } from '../../scripts/chromium.js';
import { expectUsableScreen, firstLoadOnSlow3g, networkSwitch } from '../../scripts/page-checks.js';
import { startDialInExample, type DialInExample } from './server.js';

// The dial-in example in a real browser: Debian's Chromium driven by playwright-core, the React page on
// @verikit/react, the flow API and the USSD callback over HTTP, the Africa's Talking fake dialling as a phone.
const skipReason =
  existsSync(chromiumPath) || process.env.CI === 'true'
    ? undefined
    : `${chromiumPath} is missing (apt-get install chromium)`;
if (skipReason !== undefined) console.warn(`skipping the dial-in browser test: ${skipReason}`);

/** Records every text the page's live region (`#announcer`) speaks, from the first render: an init script. */
const recordSpoken = `
  window.__spoken = [];
  new MutationObserver(() => {
    const text = document.getElementById('announcer')?.textContent ?? '';
    if (text !== '' && text !== window.__lastSpoken) window.__spoken.push(text);
    window.__lastSpoken = text;
  }).observe(document, { subtree: true, childList: true, characterData: true });
`;

/** What has focus: an element's tag and text. */
const focused = (page: Page) =>
  page.evaluate('document.activeElement.tagName.toLowerCase() + ": " + document.activeElement.textContent');
const spoken = (page: Page) => page.evaluate('window.__spoken') as Promise<string[]>;

/** The engine's clock: the system's, moved on by `offset` to reach a code's expiry without waiting for it. */
const clock = { offset: 0, now: () => Date.now() + clock.offset };

describe.skipIf(skipReason !== undefined)('dial-in example in Chromium', () => {
  const running: { example?: DialInExample; browser?: Browser } = {};
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    running.browser = await chromium.launch({ executablePath: chromiumPath, args: [...chromiumArgs] });
    running.example = await startDialInExample(0, { clock });
  }, 60_000);

  /**
   * The code's time runs out: the engine's clock and the page's (Playwright's, installed at `open`) both move past
   * its lifetime (10 minutes). The page reads the flow again when its expiry passes (the server pushes nothing then).
   */
  async function expireCodes(page: Page): Promise<void> {
    clock.offset += 11 * 60_000;
    await page.clock.fastForward('11:00');
  }
  afterAll(() => Promise.all([running.browser?.close(), running.example?.close()]));
  afterEach(() => Promise.all(contexts.splice(0).map((context) => context.close())));

  async function open(locale = 'en-GB'): Promise<Page> {
    const context = await running.browser!.newContext({ locale, viewport: { width: 360, height: 740 } });
    contexts.push(context);
    context.setDefaultTimeout(10_000);
    await context.addInitScript(recordSpoken);
    await context.clock.install();
    const page = await context.newPage();
    await page.goto(running.example!.url);
    return page;
  }

  async function startDial(page: Page, phoneNumber: string): Promise<string> {
    await page.getByLabel('Phone number (with country code)').fill(phoneNumber);
    await page.getByRole('button', { name: 'Confirm by dialling' }).click();
    await page.getByRole('heading', { name: 'Dial to confirm' }).waitFor();
    return (await page.locator('#dial a').textContent())!;
  }

  it('shows the code to dial as a tel: link, and turns to confirmed when that number dials it: focus, one announcement each', async () => {
    const { example } = running as Required<typeof running>;
    const page = await open();
    await page.getByRole('heading', { name: 'Your phone number' }).waitFor();
    await expectUsableScreen(page, 'dial-in phone form');
    const phoneNumber = freshPhoneNumber();
    const code = await startDial(page, phoneNumber);
    expect(code).toMatch(/^\*384\*1234\*\d{6}#$/);
    // On a phone the link opens the dialler with the code: `#` percent-encoded, `*` kept.
    expect(await page.locator('#dial a').getAttribute('href')).toBe(`tel:${code.replace('#', '%23')}`);
    expect(await page.locator('#dial').textContent()).toContain('Dial');
    await page.getByText('Waiting for your dial… this page updates by itself.').waitFor();
    await page.getByText(/^Time left: \d+:\d\d$/).waitFor();
    await page.getByRole('button', { name: 'Cancel' }).waitFor();
    expect(await focused(page)).toBe('h2: Dial to confirm');
    await expectUsableScreen(page, 'dial-in dial');

    // Another number dialling the code changes nothing on the page.
    const stranger = await example.fake.dial({ phoneNumber: freshPhoneNumber(), code });
    expect(stranger).toMatchObject({ kind: 'END', outcome: 'answered' });
    expect(stranger.screen).toContain('not valid');
    const screen = await example.fake.dial({ phoneNumber, code });
    expect(screen).toMatchObject({ kind: 'END', outcome: 'answered', screen: expect.stringContaining('confirmed') });
    await page.getByRole('heading', { name: 'Number confirmed' }).waitFor();
    expect(await focused(page)).toBe('h2: ✓ Number confirmed');
    // The number as the view carries it, masked: the page never echoes the full number back.
    const confirmed = (await page.locator('section.flow').textContent())!;
    expect(confirmed).toContain(`${phoneNumber.slice(0, 4)}******${phoneNumber.slice(-4)} is yours`);
    await expectUsableScreen(page, 'dial-in confirmed');
    expect(await spoken(page)).toEqual(['Dial to confirm', 'Number confirmed']);
  }, 30_000);

  it('a refused number is shown from its message id, marked on the field; never the developer text', async () => {
    const page = await open();
    const field = page.getByLabel('Phone number (with country code)');
    await field.fill('08012345678');
    await page.getByRole('button', { name: 'Confirm by dialling' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('Enter the number with its country code, such as +234.');
    expect(await page.locator('main').textContent()).not.toMatch(/phoneNumber|must start/);
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await field.getAttribute('aria-describedby')).toBe(await alert.getAttribute('id'));
    await expectUsableScreen(page, 'dial-in refused number');
  });

  it('offline: a notice, spoken once, that goes when the connection is back; Cancel returns to the form, focused', async () => {
    const page = await open();
    await startDial(page, freshPhoneNumber());
    const network = await networkSwitch(page);
    const notice = page.locator('main .notice', {
      hasText: 'You are offline. This page updates when you are back online.',
    });
    await network(true);
    await notice.waitFor();
    await expectUsableScreen(page, 'dial-in offline');
    await network(false);
    await notice.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('heading', { name: 'Your phone number' }).waitFor();
    expect(await focused(page)).toBe('h2: Your phone number');
    expect(await spoken(page)).toEqual([
      'Dial to confirm',
      'You are offline. This page updates when you are back online.',
      'You are back online.',
    ]);
  });

  it('a reload shows the same code again (the same flow); an expired code says so, survives a reload, and a new one is a click away', async () => {
    const { example } = running as Required<typeof running>;
    const page = await open();
    const phoneNumber = freshPhoneNumber();
    const code = await startDial(page, phoneNumber);
    const flowId = await page.evaluate("JSON.parse(sessionStorage.getItem('dial-in.flow')).flowId");

    // A reload asks the server: the flow is live, so the same code is shown, and no flow is started.
    await page.reload();
    await page.getByRole('heading', { name: 'Dial to confirm' }).waitFor();
    expect(await page.locator('#dial a').textContent()).toBe(code);
    expect(await page.evaluate("JSON.parse(sessionStorage.getItem('dial-in.flow')).flowId")).toBe(flowId);
    expect(await page.getByLabel('Phone number (with country code)').count()).toBe(0);

    await expireCodes(page);
    await page.getByRole('heading', { name: 'The code expired' }).waitFor();
    expect(await focused(page)).toBe('h2: The code expired');
    await page.getByText('Nobody dialled it in time. A new code is free and takes a moment.').waitFor();
    expect(await spoken(page)).toEqual(['Dial to confirm', 'The code expired']);
    await expectUsableScreen(page, 'dial-in expired');
    // The expired code confirms nothing, even from the right phone.
    const late = await example.fake.dial({ phoneNumber, code });
    expect(late.screen).not.toContain('confirmed');

    // After a reload the page still says the code expired (the server's word), with the same way forward.
    await page.reload();
    await page.getByRole('heading', { name: 'The code expired' }).waitFor();
    await page.getByRole('button', { name: 'Use another number' }).waitFor();
    await page.getByRole('button', { name: 'Get a new code' }).click();
    await page.getByRole('heading', { name: 'Dial to confirm' }).waitFor();
    const fresh = (await page.locator('#dial a').textContent())!;
    expect(fresh).toMatch(/^\*384\*1234\*\d{6}#$/);
    expect(fresh).not.toBe(code);
    expect(await page.evaluate("JSON.parse(sessionStorage.getItem('dial-in.flow')).flowId")).not.toBe(flowId);
    expect(await focused(page)).toBe('h2: Dial to confirm');
    await expect
      .poll(() => example.fake.dial({ phoneNumber, code: fresh }).then((answer) => answer.screen))
      .toContain('confirmed');
    await page.getByRole('heading', { name: 'Number confirmed' }).waitFor();
  }, 60_000);

  it('in French: the tab title, the page and the parts speak French', async () => {
    const page = await open('fr-FR');
    await page.getByRole('heading', { name: 'Votre numéro de téléphone' }).waitFor();
    expect(await page.title()).toBe('Confirmez votre numéro en composant un code');
    expect(await page.getAttribute('html', 'lang')).toBe('fr');
    await page.getByLabel("Numéro de téléphone (avec l'indicatif du pays)").fill(freshPhoneNumber());
    await page.getByRole('button', { name: 'Confirmer en composant' }).click();
    await page.getByRole('heading', { name: 'Composez pour confirmer' }).waitFor();
    await page.getByText(/^Temps restant : \d+:\d\d$/).waitFor();
    await expectUsableScreen(page, 'dial-in dial, in French');
    await expireCodes(page);
    await page.getByRole('heading', { name: 'Le code a expiré' }).waitFor();
    await page.getByRole('button', { name: 'Obtenir un nouveau code' }).waitFor();
    await expectUsableScreen(page, 'dial-in expired, in French');
    await page.getByRole('button', { name: 'Utiliser un autre numéro' }).click();
    await page.getByRole('heading', { name: 'Votre numéro de téléphone' }).waitFor();
    expect(await focused(page)).toBe('h2: Votre numéro de téléphone');
  });

  it('on Slow 3G the page is one compressed answer (the figure is printed, not asserted)', async () => {
    const load = await firstLoadOnSlow3g(running.browser!, running.example!.url, 'button.primary');
    console.log(`dial-in on Slow 3G: form on screen ${load.formAt} ms, ${load.requests} request(s), ${load.bytes} B`);
    expect([load.encoding, load.requests]).toEqual(['br', 1]);
  }, 90_000);
});
