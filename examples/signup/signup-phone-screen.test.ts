import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { freshPhoneNumber } from '@verikit/testing';
import {
  browserTestsSkipReason,
  flowStatus,
  focused,
  recordEvents,
  recordSpoken,
  slow3g,
  spoken,
  useBrowserSuite,
} from './signup-browser.fixtures.js';
import { expectUsableScreen } from '../../scripts/page-checks.js';

// Issue 17 on a phone: a 390×844 screen on the CDP "Slow 3G" profile (finding 9), driven by the keyboard alone.
const skipReason = browserTestsSkipReason();

/** The focused element's id, or its tag and text. */
async function focusedId(page: Page): Promise<string> {
  return (await page.evaluate(
    `(() => { const e = document.activeElement; return e?.id || (e?.tagName.toLowerCase() + ': ' + e?.textContent); })()`,
  )) as string;
}

describe.skipIf(skipReason !== undefined)('the signup page on a phone (Chromium, 390×844)', () => {
  const suite = useBrowserSuite();

  it('on Slow 3G the page is one compressed answer, revalidated by its ETag; nothing is wider than the screen', async () => {
    const context = await suite.newContext({ viewport: { width: 390, height: 844 }, timeoutMs: 30_000 });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', slow3g);
    const requested: string[] = [];
    page.on('request', (request) => requested.push(new URL(request.url()).pathname));

    const first = await page.goto(suite.harness.server.url);
    expect(first?.status()).toBe(200);
    expect(first?.headers()['content-encoding']).toMatch(/^(br|gzip)$/);
    expect(first?.headers().etag).toMatch(/^"[\w-]+"$/);
    // Its script and stylesheet are inside it: one round trip (2 s on this profile) shows the form.
    const { responseBodySize } = await first!.request().sizes();
    const raw = (await first!.body()).length;
    expect(responseBodySize).toBeLessThan(raw / 2);
    await page.getByLabel('Phone number').waitFor();
    expect(requested).toEqual(['/']);
    expect((await page.evaluate('document.documentElement.scrollWidth')) as number).toBeLessThanOrEqual(390);

    // A reload asks with the page's ETag and gets a 304: the page from the cache, no body over the wire.
    const statuses: number[] = [];
    // What came over the wire (the page then shows its cached copy, reported as a 200).
    cdp.on('Network.responseReceivedExtraInfo', ({ statusCode }) => statuses.push(statusCode));
    const again = await page.reload();
    expect((await again!.request().allHeaders())['if-none-match']).toBe(first?.headers().etag);
    expect(statuses[0]).toBe(304);
  }, 60_000);

  it('the keyboard alone verifies a number: Tab to each control, focus follows each step, one submit', async () => {
    const page = await suite.open({ viewport: { width: 390, height: 844 }, init: [recordSpoken] });
    const events = recordEvents(page);
    const phoneNumber = freshPhoneNumber();
    // The page's load event can come before React has drawn the form; a Tab pressed then focuses nothing.
    await page.locator('form[data-status="phone-form"]').waitFor();
    await expectUsableScreen(page, 'phone form');
    await page.keyboard.press('Tab');
    expect(await focusedId(page)).toBe('phone-number');
    await page.keyboard.type(phoneNumber);
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('input: ');
    expect(await page.evaluate('document.activeElement.value')).toBe('phone');
    await page.keyboard.press('Tab');
    expect(await focusedId(page)).toBe('button: Verify my number');
    await page.keyboard.press('Enter');
    await flowStatus(page, 'awaiting-code');
    await expect.poll(() => focused(page)).toBe('Digit 1 of 6');
    await page.keyboard.type(suite.harness.sandbox.lastCode(phoneNumber)!);
    await flowStatus(page, 'verified');
    await expect.poll(() => focused(page)).toBe('h2: ✓ Phone number verified');
    await page.keyboard.press('Tab');
    expect(await focusedId(page)).toBe('button: Continue');
    await page.keyboard.press('Enter');
    await page.locator('form[data-status="bvn-form"]').waitFor();
    // The heading takes focus in an effect, after the render the wait saw.
    await expect.poll(() => focused(page)).toBe('h2: Your BVN');
    expect(events).toEqual(['submit-code']);
    expect((await spoken(page)).at(-1)).toBe('Verified.');
    expect((await page.evaluate('document.documentElement.scrollWidth')) as number).toBeLessThanOrEqual(390);
  }, 30_000);

  it('a code pasted into any digit, or autofilled into the first, fills every field and is sent once', async () => {
    const context = await suite.newContext({ viewport: { width: 390, height: 844 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: suite.harness.server.url });
    for (const way of ['paste', 'autofill'] as const) {
      const page = await context.newPage();
      await page.goto(suite.harness.server.url);
      const events = recordEvents(page);
      const phoneNumber = freshPhoneNumber();
      await page.getByLabel('Phone number').fill(phoneNumber);
      await page.getByRole('button', { name: 'Verify my number' }).click();
      await flowStatus(page, 'awaiting-code');
      const code = suite.harness.sandbox.lastCode(phoneNumber)!;
      if (way === 'paste') {
        // The SMS as it was copied, into the fourth field: Ctrl+V through the system clipboard.
        await page.evaluate(`navigator.clipboard.writeText('Your Acme code: ${code.slice(0, 3)}-${code.slice(3)}')`);
        await page.getByRole('textbox', { name: 'Digit 4 of 6' }).click();
        await page.keyboard.press('ControlOrMeta+V');
      } else {
        // The browser's one-time-code autofill puts the whole code into the field that offers it.
        expect(await page.getByRole('textbox', { name: 'Digit 1 of 6' }).getAttribute('autocomplete')).toBe(
          'one-time-code',
        );
        await page.getByRole('textbox', { name: 'Digit 1 of 6' }).fill(code);
      }
      await flowStatus(page, 'verified');
      expect(events).toEqual(['submit-code']);
      await page.close();
    }
  }, 30_000);
});
