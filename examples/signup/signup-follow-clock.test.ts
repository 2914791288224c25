import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPhoneNumber } from '@verikit/testing';
import { buildPage } from './server/build-page.js';
import { browserTestsSkipReason, fastClock, useBrowserSuite } from './signup-browser.fixtures.js';

// Issue 17, finding 7, in Chromium: a page that only follows a flow (it never started one, so it has heard
// nothing from the server) on a device whose clock is 5 minutes fast.
const skipReason = browserTestsSkipReason();
/** Long enough that a page loading on a busy machine still shows several seconds of countdown. */
const cooldownMs = 12_000;
const skewMs = 300_000;

/** What the resend button showed, and when (ms since the page's start on its own, unskewed, timeline). */
const recordButton = `
  window.__labels = [];
  new MutationObserver(() => {
    const button = document.querySelector('main button');
    if (button === null) return;
    const label = button.textContent + (button.getAttribute('aria-disabled') === 'true' ? ' (disabled)' : '');
    if (window.__labels.at(-1)?.label !== label) window.__labels.push({ label, at: performance.now() });
  }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
`;

describe.skipIf(skipReason !== undefined)('a follow-only page on a fast device clock (Chromium)', () => {
  const suite = useBrowserSuite({ env: { VERIKIT_RESEND_COOLDOWN_MS: String(cooldownMs) } });
  let pageDir: string;
  let followPage: string;
  beforeAll(async () => {
    pageDir = await mkdtemp(join(tmpdir(), 'verikit-follow-page-'));
    await buildPage(pageDir, 'follow-only.fixtures.html');
    followPage = await readFile(join(pageDir, 'follow-only.fixtures.html'), 'utf8');
  }, 60_000);
  afterAll(async () => {
    if (pageDir !== undefined) await rm(pageDir, { recursive: true, force: true });
  });

  it('counts the resend cooldown down on the server clock, and reads the flow only once its deadline passed', async () => {
    const { url } = suite.harness.server;
    // The flow is started elsewhere (the first device); this page is handed its id and secret. It is started when the
    // browser asks for the page, the browser already up, so the cooldown runs while the page loads, not while a
    // browser context is made (seconds on a loaded machine).
    let view: { id: string } | undefined;
    let startedAt = 0;
    const context = await suite.newContext({ init: [fastClock(skewMs), recordButton] });
    await context.route(`${url}/follow-only`, async (route) => {
      const answer = await fetch(`${url}/api/verify/flows`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ kind: 'phone', phoneNumber: freshPhoneNumber() }),
      });
      expect(answer.status).toBe(201);
      const { flowSecret: secret, ...started } = (await answer.json()) as { id: string; flowSecret: string };
      view = started;
      startedAt = Date.now();
      const handed = `<script>window.__follow = ${JSON.stringify({ view: started, secret })};</script>`;
      await route.fulfill({
        status: 200,
        contentType: 'text/html; charset=utf-8',
        body: followPage.replace('<script', `${handed}<script`),
      });
    });
    const page = await context.newPage();
    await page.goto(`${url}/follow-only`);
    if (view === undefined) throw new Error('the page was served without a flow');
    expect((await page.evaluate('Date.now() - performance.timeOrigin - performance.now()')) as number).toBeGreaterThan(
      skewMs - 50_000,
    );
    await page.locator('main[data-connection="open"]').waitFor();

    // Once the stream answered, the countdown shows the cooldown's time left, not 0.
    const button = page.getByRole('button', { name: /^Resend code/ });
    // Not asserted against the test's clock (how soon the page shows it is the machine's speed): the labels below
    // must include a countdown with 3 s or more left, which the page shows unless it took most of the cooldown to run.
    await expect
      .poll(() => button.textContent(), { timeout: cooldownMs })
      .toMatch(/^Resend code in 0:(0[1-9]|1[0-2])$/);
    // The button opens once the cooldown is over on the server's clock, not before.
    await page.locator('main button[aria-disabled="false"]', { hasText: /^Resend code$/ }).waitFor();
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(cooldownMs - 1_500);
    await page.waitForTimeout(2_500);

    // Second by second: from the first countdown until a second before its end, the button never read 0.
    const labels = (await page.evaluate('window.__labels')) as Array<{ label: string; at: number }>;
    const first = labels.find(({ label }) => /^Resend code in 0:(0[3-9]|1[0-2]) \(disabled\)$/.test(label));
    expect(first, JSON.stringify(labels)).toBeDefined();
    const end = first!.at + Number(/0:(\d\d)/.exec(first!.label)![1]) * 1000 - 1_000;
    const early = labels.filter(({ label, at }) => at > first!.at && at < end && !/ in 0:\d\d/.test(label));
    expect(early).toEqual([]);
    // No read for the deadline that looked long past before the clock was known: every read of the flow (on the
    // page's timeline, as its labels) comes once the countdown it showed had run out, at most a render late. Not
    // against the test's own clock: the estimate is as good as the answers' latency, seconds on a loaded machine,
    // and an early guess is then read again, a few times at most.
    const reads = (await page.evaluate(
      `performance.getEntriesByType('resource').filter((entry) => new URL(entry.name).pathname === ${JSON.stringify(`/api/verify/flows/${view.id}`)}).map((entry) => entry.startTime)`,
    )) as number[];
    expect(reads.length).toBeGreaterThan(0);
    expect(
      reads.filter((at) => at < end - 250),
      JSON.stringify({ end, reads }),
    ).toEqual([]);
    expect(reads.length).toBeLessThanOrEqual(3);
  }, 60_000);
});
