/**
 * What every screen of every example is checked for in the browser tests (docs/ui.md, "Every screen, every
 * phone"): axe finds nothing (WCAG 2.1 A and AA, and axe's best practices), and the screen reflows: at every
 * width of {@link sweepWidths} and with the text at 200%, nothing is wider than the viewport.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { NodeResult, Result } from 'axe-core';
import { expect } from 'vitest';
import type { Browser, Page } from 'playwright-core';

/**
 * The widths swept, in CSS px: 320 (WCAG's reflow width, small Androids), 360 (the most common Android width in
 * Nigeria), 390 (recent iPhones and large Androids), 414 (the largest common phone).
 */
export const sweepWidths: readonly number[] = [320, 360, 390, 414];

/** axe-core's browser build, read once. */
let axeSource: Promise<string> | undefined;

/** WCAG 2.0/2.1 level A and AA, and axe's best practices: the rules docs/ui.md says the screens pass. */
const axeTags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] as const;

/** One rule's finding as axe reports it, cut to what a failure message needs. */
type AxeFinding = Pick<Result, 'id' | 'impact' | 'help'> & {
  readonly nodes: ReadonlyArray<Pick<NodeResult, 'target' | 'failureSummary'>>;
};

/**
 * Runs axe-core on the page as it is now and fails the test with each finding (WCAG 2.1 A and AA, and best
 * practices), its rule, its elements and axe's summary: `screen` names the screen in the message. No rule is off.
 */
export async function expectNoAxeFindings(page: Page, screen: string): Promise<void> {
  axeSource ??= readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  // A page keeps the script once injected (a reload or a navigation drops it).
  if (!((await page.evaluate('typeof window.axe !== "undefined"')) as boolean))
    await page.addScriptTag({ content: await axeSource });
  const findings = (await page.evaluate(
    `axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(axeTags)} }, resultTypes: ['violations'] })
       .then((results) => results.violations.map(({ id, impact, help, nodes }) =>
         ({ id, impact, help, nodes: nodes.map(({ target, failureSummary }) => ({ target, failureSummary })) })))`,
  )) as AxeFinding[];
  const described = findings.map(
    (finding) =>
      `${finding.id} (${finding.impact ?? 'no impact'}): ${finding.help}\n` +
      finding.nodes.map((node) => `  ${JSON.stringify(node.target)}: ${node.failureSummary ?? ''}`).join('\n'),
  );
  // One string: vitest prints it whole, where it would cut an array of them short.
  expect(described.join('\n'), `axe on the ${screen} screen`).toBe('');
}

/**
 * What sticks out of the viewport: the document's scroll width when it is wider, and each visible element whose
 * box ends past the right edge (a field cut by `overflow: hidden` is as unusable as one that scrolls away); text
 * kept for screen readers in a 1 px clipping box is not on screen and is left out.
 */
const overflowing = `(() => {
  // Text only for screen readers: a 1 px box that clips what it holds (the visually-hidden idiom).
  const hiddenText = (element) => {
    for (let up = element.parentElement; up !== null; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (up.getBoundingClientRect().width <= 1 && style.overflow !== 'visible') return true;
    }
    return false;
  };
  const width = document.documentElement.clientWidth;
  const found = [];
  if (document.documentElement.scrollWidth > width) found.push('the document is ' + document.documentElement.scrollWidth + ' px wide');
  for (const element of document.body.querySelectorAll('*')) {
    const box = element.getBoundingClientRect();
    if (box.width <= 1 || box.height <= 1 || box.right <= width + 0.5) continue;
    const style = getComputedStyle(element);
    if (style.visibility === 'hidden' || style.position === 'fixed' || hiddenText(element)) continue;
    const name = element.tagName.toLowerCase() + (element.id ? '#' + element.id : '') +
      (element.getAttribute('aria-label') ? '[' + element.getAttribute('aria-label') + ']' : '');
    found.push(name + ' ends at ' + Math.round(box.right) + ' px');
  }
  return found;
})()`;

/** Waits until the page has laid out and painted what a resize or a style change caused. */
const twoFrames = 'new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(true))))';

/**
 * Sweeps the screen as it is now across {@link sweepWidths}, then at 360 px with the text at 200% (browser text
 * zoom, or Android's largest font), and fails with what sticks out at each; the viewport and the text size are
 * restored after.
 */
export async function expectReflow(page: Page, screen: string): Promise<void> {
  const before = page.viewportSize();
  const found: string[] = [];
  const measure = async (label: string) => {
    await page.evaluate(twoFrames);
    for (const item of (await page.evaluate(overflowing)) as string[]) found.push(`${label}: ${item}`);
  };
  try {
    for (const width of sweepWidths) {
      await page.setViewportSize({ width, height: 640 });
      await measure(`${width} px`);
    }
    await page.setViewportSize({ width: 360, height: 640 });
    await page.evaluate(`document.documentElement.style.fontSize = '200%'`);
    await measure('360 px, text at 200%');
  } finally {
    await page.evaluate(`document.documentElement.style.removeProperty('font-size')`);
    if (before !== null) await page.setViewportSize(before);
    await page.evaluate(twoFrames);
  }
  expect(found.join('\n'), `reflow of the ${screen} screen`).toBe('');
}

/** {@link expectNoAxeFindings} and {@link expectReflow}: what every screen of every example passes. */
export async function expectUsableScreen(page: Page, screen: string): Promise<void> {
  await expectNoAxeFindings(page, screen);
  await expectReflow(page, screen);
}

/**
 * Switches the page's network off and on as the browser sees it (CDP `Network.emulateNetworkConditions`: requests
 * fail, `navigator.onLine` turns false, and the `offline` and `online` events fire).
 */
export async function networkSwitch(page: Page): Promise<(offline: boolean) => Promise<void>> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  return async (offline) => {
    await cdp.send('Network.emulateNetworkConditions', {
      offline,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
  };
}

/** Chrome DevTools' "Slow 3G" preset, as CDP's `Network.emulateNetworkConditions` takes it. */
const slow3g = { offline: false, latency: 2000, downloadThroughput: 50_000, uploadThroughput: 50_000 } as const;

/** What {@link firstLoadOnSlow3g} measured. */
export interface FirstLoad {
  /** From the start of navigation to the frame after `ready` matched, in ms (timed in the page). */
  readonly formAt: number;
  /** Bytes over the wire, compressed, every request included. */
  readonly bytes: number;
  readonly requests: number;
  /** The page's `content-encoding`. */
  readonly encoding: string | undefined;
}

/**
 * Loads `url` cold in a new 360 px context on Chrome's "Slow 3G" profile and times the form on screen: the frame
 * after an element matching `ready` is in the DOM. A figure to print, never to assert (it depends on the machine).
 */
export async function firstLoadOnSlow3g(browser: Browser, url: string, ready: string): Promise<FirstLoad> {
  const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', slow3g);
    let bytes = 0;
    let requests = 0;
    cdp.on('Network.loadingFinished', (event: { encodedDataLength: number }) => {
      bytes += event.encodedDataLength;
      requests += 1;
    });
    await page.addInitScript(`
      new MutationObserver((_, observer) => {
        if (document.querySelector(${JSON.stringify(ready)}) === null) return;
        observer.disconnect();
        requestAnimationFrame(() => (window.__formAt = performance.now()));
      }).observe(document, { subtree: true, childList: true, characterData: true });
    `);
    const response = await page.goto(url, { waitUntil: 'load', timeout: 60_000 });
    await page.waitForFunction('window.__formAt !== undefined', undefined, { timeout: 60_000 });
    const formAt = Math.round((await page.evaluate('window.__formAt')) as number);
    return { formAt, bytes, requests, encoding: response?.headers()['content-encoding'] };
  } finally {
    await context.close();
  }
}
