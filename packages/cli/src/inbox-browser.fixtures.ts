import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { chromiumArgs, chromiumPath } from '../../../scripts/chromium.js';

/** Without Chromium the inbox browser tests are skipped with the reason, except under CI=true, where they fail. */
export function skipWithoutChromium(what: string): boolean {
  const skip = !existsSync(chromiumPath) && process.env.CI !== 'true';
  if (skip) console.warn(`${chromiumPath} is missing: ${what} is skipped`);
  return skip;
}

/**
 * Chromium on a fake's inbox page at a phone's width (the page must fit it), once the page follows the fake's
 * changes live. Dialogs are dismissed, so an XSS `alert` cannot hang the test.
 */
export async function openInbox(inboxUrl: string): Promise<{ browser: Browser; page: Page }> {
  const browser = await chromium.launch({ executablePath: chromiumPath, args: [...chromiumArgs] });
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  page.on('dialog', (dialog) => void dialog.dismiss());
  await page.goto(inboxUrl);
  await page.locator('#live', { hasText: 'Updates live.' }).waitFor();
  return { browser, page };
}
