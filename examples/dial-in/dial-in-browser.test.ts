import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { freshPhoneNumber } from '@verikit/testing';
import { chromiumArgs, chromiumPath } from '../../scripts/chromium.js';
import { startDialInExample, type DialInExample } from './server.js';

// The dial-in example in a real browser: Debian's Chromium driven by playwright-core, the React page on
// @verikit/react, the flow API and the USSD callback over HTTP, the Africa's Talking fake dialling as a phone.
const skipReason =
  existsSync(chromiumPath) || process.env.CI === 'true'
    ? undefined
    : `${chromiumPath} is missing (apt-get install chromium)`;
if (skipReason !== undefined) console.warn(`skipping the dial-in browser test: ${skipReason}`);

describe.skipIf(skipReason !== undefined)('dial-in example in Chromium', () => {
  const running: { example?: DialInExample; browser?: Browser } = {};
  beforeAll(async () => {
    running.browser = await chromium.launch({ executablePath: chromiumPath, args: [...chromiumArgs] });
    running.example = await startDialInExample(0);
  }, 60_000);
  afterAll(() => Promise.all([running.browser?.close(), running.example?.close()]));

  it('shows the code to dial as a tel: link, and turns to confirmed when that number dials it', async () => {
    const { example, browser } = running as Required<typeof running>;
    const page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(example.url);
    const phoneNumber = freshPhoneNumber();
    await page.getByLabel('Phone number (with country code)').fill(phoneNumber);
    await page.getByRole('button', { name: 'Confirm by dialling' }).click();
    const link = page.locator('#dial a');
    const code = (await link.textContent())!;
    expect(code).toMatch(/^\*384\*1234\*\d{6}#$/);
    // On a phone the link opens the dialler with the code: `#` percent-encoded, `*` kept.
    expect(await link.getAttribute('href')).toBe(`tel:${code.replace('#', '%23')}`);
    expect(await page.locator('#dial').textContent()).toContain('Dial');

    // Another number dialling the code changes nothing on the page.
    const stranger = await example.fake.dial({ phoneNumber: freshPhoneNumber(), code });
    expect(stranger).toMatchObject({ kind: 'END', outcome: 'answered' });
    expect(stranger.screen).toContain('not valid');
    const screen = await example.fake.dial({ phoneNumber, code });
    expect(screen).toMatchObject({ kind: 'END', outcome: 'answered', screen: expect.stringContaining('confirmed') });
    await page.getByRole('heading', { name: 'Number confirmed' }).waitFor();
    await page.close();
  });
});
