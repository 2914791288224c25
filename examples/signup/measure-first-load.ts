/**
 * Measures the signup page's first load in Chromium on the CDP "Slow 3G" profile (DevTools' preset:
 * 2,000 ms latency, 50,000 bytes/s down, 50,000 bytes/s up), cold cache: the time until the phone form
 * is on screen and the load event, the bytes over the wire, and the built JavaScript and CSS sizes
 * (raw, gzip, brotli); times are the page's own, from the start of navigation. Then a reload (warm cache), and submit → "Checking…" on screen on the same
 * profile. Run: `pnpm --filter @verikit/example-signup measure`.
 *
 * @module
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { freshPhoneNumber } from '@verikit/testing';
import { launchChromium, slow3g, startHarness } from './signup-browser.fixtures.js';

const runs = 3;

const harness = await startHarness();
const browser = await launchChromium();
try {
  const assets = join(harness.pageDir, 'assets');
  for (const name of await readdir(assets)) {
    const body = await readFile(join(assets, name));
    console.log(
      `asset ${name}: ${body.length} B raw, ${gzipSync(body, { level: 9 }).length} B gzip, ${brotliCompressSync(body).length} B brotli`,
    );
  }
  const html = await readFile(join(harness.pageDir, 'index.html'));
  console.log(`index.html: ${html.length} B raw, ${brotliCompressSync(html).length} B brotli`);

  const cold: number[] = [];
  const loads: number[] = [];
  const warm: number[] = [];
  const checking: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', slow3g);
    let bytes = 0;
    cdp.on('Network.loadingFinished', (event: { encodedDataLength: number }) => {
      bytes += event.encodedDataLength;
    });
    // Timed in the page, from the start of navigation: the frame after the phone form's button is in the DOM, and the load event.
    await page.addInitScript(`
      new MutationObserver((_, observer) => {
        const button = [...document.querySelectorAll('button')].find((b) => b.textContent === 'Verify my number');
        if (button === undefined) return;
        observer.disconnect();
        requestAnimationFrame(() => (window.__formAt = performance.now()));
      }).observe(document, { subtree: true, childList: true });
    `);
    await page.goto(harness.server.url, { waitUntil: 'load', timeout: 60_000 });
    await page.waitForFunction('window.__formAt !== undefined', undefined, { timeout: 60_000 });
    cold.push(Math.round((await page.evaluate('window.__formAt')) as number));
    loads.push(
      Math.round((await page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")) as number),
    );
    console.log(`run ${run + 1}: form on screen ${cold.at(-1)} ms, load ${loads.at(-1)} ms, ${bytes} B over the wire`);

    await page.reload({ waitUntil: 'load', timeout: 60_000 });
    await page.waitForFunction('window.__formAt !== undefined', undefined, { timeout: 60_000 });
    warm.push(Math.round((await page.evaluate('window.__formAt')) as number));

    // Submit → "Checking…": from the last digit's keydown to the text on screen, timed in the page.
    const phoneNumber = freshPhoneNumber();
    await page.getByLabel('Phone number').fill(phoneNumber);
    await page.getByRole('button', { name: 'Verify my number' }).click();
    await page.getByRole('textbox', { name: 'Digit 1 of 6' }).waitFor({ timeout: 60_000 });
    await page.evaluate(`
      document.addEventListener('keydown', () => (window.__keyAt = performance.now()), { capture: true });
      new MutationObserver(() => {
        if (window.__checkingAt === undefined && document.querySelector('main')?.textContent?.includes('Checking…'))
          window.__checkingAt = performance.now();
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    `);
    await page.getByRole('textbox', { name: 'Digit 1 of 6' }).click();
    await page.keyboard.type(harness.sandbox.lastCode(phoneNumber) === '000000' ? '111111' : '000000');
    // A page that never says "Checking…" shows the answer at last: measured as "never".
    await page
      .locator('main')
      .getByText(/Checking…|not correct/)
      .first()
      .waitFor({ timeout: 60_000 });
    const shown = (await page.evaluate('(window.__checkingAt ?? NaN) - (window.__keyAt ?? NaN)')) as number;
    checking.push(shown);
    await context.close();
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  console.log(`submit → "Checking…" per run (ms; NaN: never shown): ${checking.map((ms) => ms.toFixed(1)).join(', ')}`);
  console.log(
    `Slow 3G, median of ${runs}: first load (form on screen) ${median(cold)} ms, load event ${median(loads)} ms; ` +
      `warm reload ${median(warm)} ms; submit → "Checking…" ${median(checking).toFixed(1)} ms`,
  );
} finally {
  await browser.close();
  await harness.close();
}
