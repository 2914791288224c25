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
const cooldownMs = 8_000;
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
    // The flow is started elsewhere (the first device); this page is handed its id and secret.
    const answer = await fetch(`${url}/api/verify/flows`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'phone', phoneNumber: freshPhoneNumber() }),
    });
    expect(answer.status).toBe(201);
    const { flowSecret: secret, ...view } = (await answer.json()) as { id: string; flowSecret: string };
    const startedAt = Date.now();

    const context = await suite.newContext({
      init: [fastClock(skewMs), recordButton, `window.__follow = ${JSON.stringify({ view, secret })};`],
    });
    await context.route(`${url}/follow-only`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: followPage }),
    );
    const page = await context.newPage();
    await page.goto(`${url}/follow-only`);
    expect((await page.evaluate('Date.now() - performance.timeOrigin - performance.now()')) as number).toBeGreaterThan(
      skewMs - 50_000,
    );
    await page.locator('main[data-connection="open"]').waitFor();

    // Once the stream answered, the countdown shows the cooldown's time left, not 0.
    const button = page.getByRole('button', { name: /^Resend code/ });
    await expect.poll(() => button.textContent()).toMatch(/^Resend code in 0:0[1-8]$/);
    expect(Date.now() - startedAt).toBeLessThan(cooldownMs - 3_000);
    // The button opens once the cooldown is over on the server's clock, not before.
    await page.locator('main button[aria-disabled="false"]', { hasText: /^Resend code$/ }).waitFor();
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(cooldownMs - 1_500);
    await page.waitForTimeout(2_500);

    // Second by second: from the first countdown until a second before its end, the button never read 0.
    const labels = (await page.evaluate('window.__labels')) as Array<{ label: string; at: number }>;
    const first = labels.find(({ label }) => /^Resend code in 0:0[3-8] \(disabled\)$/.test(label));
    expect(first, JSON.stringify(labels)).toBeDefined();
    const end = first!.at + Number(/0:0(\d)/.exec(first!.label)![1]) * 1000 - 1_000;
    const early = labels.filter(({ label, at }) => at > first!.at && at < end && !/ in 0:0\d/.test(label));
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
  }, 40_000);
});
