import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { GatewayFake } from '@verikit/gateway/fake';
import { buildPage } from './server/build-page.js';
import { startSignupServer, type SignupServer } from './server/start-server.js';
import { chromiumArgs, chromiumPath } from '../../scripts/chromium.js';

/**
 * Whether the browser tests run: they need Chromium. Without it they are skipped with the reason
 * printed, except under CI=true, where they fail (CI must install it).
 */
export function browserTestsSkipReason(): string | undefined {
  if (existsSync(chromiumPath)) return undefined;
  const reason = `${chromiumPath} is missing: install Debian's chromium package (apt-get install -y chromium) to run the signup browser tests`;
  if (process.env.CI === 'true') return undefined; // launch() then fails with this path, and the run fails.
  return reason;
}

/** Chromium headless, with nothing that phones home. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath, args: [...chromiumArgs] });
}

/** The app under test, on the sandbox, with short policies so that every state is reached quickly. */
export interface SignupHarness {
  readonly server: SignupServer;
  /** The built page. */
  readonly pageDir: string;
  readonly sandbox: GatewayFake;
  close(): Promise<void>;
}

/** Chrome DevTools' "Slow 3G" preset, as CDP's `Network.emulateNetworkConditions` takes it. */
export const slow3g = { offline: false, latency: 2000, downloadThroughput: 50_000, uploadThroughput: 50_000 } as const;

/**
 * Test policies: 3 attempts, a 6 s resend cooldown. The tests that check the countdown act within it (read the
 * countdown, click during it); a loaded machine took seconds from the start to the first of those actions, too near
 * the 3 s this was.
 */
export const testPolicies = { maxAttempts: 3, resendCooldownMs: 6000 } as const;

/** Options of {@link startHarness}. */
export interface HarnessOptions {
  /** More settings (`VERIKIT_CODE_TTL_MS`), or `PORT` to listen where a server was before (a restart). */
  readonly env?: Readonly<Record<string, string>>;
  /** A page already built (by another harness): not built again, and left in place on close. */
  readonly pageDir?: string;
}

/** Builds the page into a temporary directory and starts the server on port 0, on the sandbox. */
export async function startHarness(options: HarnessOptions = {}): Promise<SignupHarness> {
  const ownPage = options.pageDir === undefined;
  const pageDir = options.pageDir ?? (await mkdtemp(join(tmpdir(), 'verikit-signup-page-')));
  const removePage = () => (ownPage ? rm(pageDir, { recursive: true, force: true }) : Promise.resolve());
  try {
    if (ownPage) await buildPage(pageDir);
    const server = await startSignupServer({
      pageDir,
      env: {
        PORT: '0',
        VERIKIT_PROVIDER: 'sandbox',
        VERIKIT_MAX_ATTEMPTS: String(testPolicies.maxAttempts),
        VERIKIT_RESEND_COOLDOWN_MS: String(testPolicies.resendCooldownMs),
        ...options.env,
      },
    });
    const sandbox = server.setup.sandbox;
    if (sandbox === undefined) throw new Error('the signup server did not start the sandbox');
    return {
      server,
      pageDir,
      sandbox,
      async close() {
        await server.close();
        await removePage();
      },
    };
  } catch (error) {
    await removePage();
    throw error;
  }
}

/** A code that is not `code`, of the same length. */
export function wrongCode(code: string | undefined): string {
  return code === '000000' ? '111111' : '000000';
}

/** Types a code into the OTP input the way a user does: focus the first digit, type the digits. */
export async function typeCode(page: Page, code: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Digit 1 of 6' }).click();
  await page.keyboard.type(code);
}

/** The digits in the OTP input's fields, as they are now. */
export async function digits(page: Page): Promise<string> {
  return (await page.evaluate(
    `[...document.querySelectorAll('.otp input')].map((input) => input.value).join('')`,
  )) as string;
}

/** Fills the phone step and starts the flow: `phone` (SMS code) or `ussd`. */
export async function startPhoneVerification(page: Page, phoneNumber: string, method: 'phone' | 'ussd'): Promise<void> {
  await page.getByLabel('Phone number').fill(phoneNumber);
  await page.getByLabel(method === 'ussd' ? 'I will dial a USSD code' : 'Send me a code by SMS').check();
  await page.getByRole('button', { name: 'Verify my number' }).click();
}

/** Waits until the flow on the page shows `status`. */
export async function flowStatus(page: Page, status: string): Promise<void> {
  await page.locator(`section.flow[data-status="${status}"]`).waitFor();
}

/** Phone by SMS code, then BVN, on the page, up to the BVN's "verified" (the account is not created yet). */
export async function verifyPhoneAndBvn(
  page: Page,
  harness: SignupHarness,
  input: { phoneNumber: string; bvn: string; bvnPhone: string },
): Promise<void> {
  await startPhoneVerification(page, input.phoneNumber, 'phone');
  await flowStatus(page, 'awaiting-code');
  await typeCode(page, harness.sandbox.lastCode(input.phoneNumber)!);
  await flowStatus(page, 'verified');
  await page.getByRole('button', { name: 'Continue' }).click();
  // Continue asks the flow API for the phone's proof: its failure shows as an alert, reported here as it is.
  const bvnField = page.getByLabel('Bank Verification Number');
  await bvnField.or(page.getByRole('alert')).waitFor();
  if (!(await bvnField.isVisible())) throw new Error(`Continue failed: ${await page.getByRole('alert').textContent()}`);
  await bvnField.fill(input.bvn);
  await page.getByRole('button', { name: 'Verify my BVN' }).click();
  await flowStatus(page, 'awaiting-code');
  await typeCode(page, harness.sandbox.lastCode(input.bvnPhone)!);
  await flowStatus(page, 'verified');
}

/**
 * Saves a PNG of the page's card into `SIGNUP_SCREENSHOTS` (a directory) when that is set: the
 * screenshots in docs/ui.md come from these tests (`SIGNUP_SCREENSHOTS=docs/images pnpm vitest run examples/signup`).
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.SIGNUP_SCREENSHOTS;
  if (dir === undefined || dir === '') return;
  await mkdir(resolve(dir), { recursive: true });
  await page
    .locator('main')
    .screenshot({ path: join(resolve(dir), `signup-${name}.png`), animations: 'disabled', caret: 'hide' });
}

/** Records every text the page's live region (`#announcer`) speaks, from the first render: an init script. */
export const recordSpoken = `
  window.__spoken = [];
  new MutationObserver(() => {
    const region = document.getElementById('announcer');
    const text = region?.textContent ?? '';
    if (region !== null && text !== '' && text !== window.__lastSpoken) window.__spoken.push(text);
    window.__lastSpoken = text;
  }).observe(document, { subtree: true, childList: true, characterData: true });
`;

/**
 * An init script that sets the page's clock `skewMs` ahead, as on a device whose clock is fast: `Date`
 * (and so `Date.now()`) reads ahead; timers and `performance.now()` run as they do.
 */
export function fastClock(skewMs: number): string {
  return `
    const RealDate = Date;
    class FastDate extends RealDate {
      constructor(...args) { if (args.length === 0) super(RealDate.now() + ${skewMs}); else super(...args); }
      static now() { return RealDate.now() + ${skewMs}; }
    }
    window.Date = FastDate;
  `;
}

/** What the live region said, in order (the page must run {@link recordSpoken}). */
export async function spoken(page: Page): Promise<string[]> {
  return (await page.evaluate('window.__spoken')) as string[];
}

/** What has focus: a field's accessible name, or an element's tag and text. */
export async function focused(page: Page): Promise<string> {
  return (await page.evaluate(
    `(() => { const e = document.activeElement; return e === null ? '' : (e.getAttribute('aria-label') ?? e.tagName.toLowerCase() + ': ' + e.textContent); })()`,
  )) as string;
}

/** The types of the events the page sends (`POST …/events`), as they are sent. */
export function recordEvents(page: Page): string[] {
  const events: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().endsWith('/events'))
      events.push((JSON.parse(request.postData() ?? '{}') as { type: string }).type);
  });
  return events;
}

/** Options of {@link BrowserSuite.open}. */
interface OpenOptions {
  /** Where the page goes; default the harness's page. */
  readonly url?: string;
  /** The browser's language; default `en-GB`. */
  readonly locale?: string;
  /** Scripts run in every page of the context before the page's own (`addInitScript`). */
  readonly init?: readonly string[];
  /** Default 520×760. */
  readonly viewport?: { readonly width: number; readonly height: number };
  /** How long an action or a wait may take, in ms; default 15,000. */
  readonly timeoutMs?: number;
}

/** One describe's Chromium and signup server, and the browser contexts its tests open (each closed after its test). */
export interface BrowserSuite {
  /** The server on the sandbox, started once for the describe (unless `{ harness: false }`). */
  readonly harness: SignupHarness;
  readonly browser: Browser;
  /** A new context (a browser profile of its own: its own storage, so its own owner token), closed after the test. */
  newContext(options?: OpenOptions): Promise<BrowserContext>;
  /** A new context and a page in it, at `options.url` (default: the harness's page). */
  open(options?: OpenOptions): Promise<Page>;
}

/**
 * Registers the hooks of a describe of browser tests: Chromium and (unless `harness: false`) the signup
 * server (with `env` besides the test policies) start before its tests, and every context a test opened is closed after it.
 */
export function useBrowserSuite(options: { harness?: boolean; env?: HarnessOptions['env'] } = {}): BrowserSuite {
  let harness: SignupHarness | undefined;
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    [harness, browser] = await Promise.all([
      options.harness === false ? undefined : startHarness({ env: options.env }),
      launchChromium(),
    ]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await harness?.close();
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
  });
  const suite: BrowserSuite = {
    get harness() {
      if (harness === undefined) throw new Error('this suite started no signup server');
      return harness;
    },
    get browser() {
      if (browser === undefined) throw new Error('Chromium is not running');
      return browser;
    },
    async newContext(open: OpenOptions = {}) {
      const context = await suite.browser.newContext({
        viewport: open.viewport ?? { width: 520, height: 760 },
        locale: open.locale ?? 'en-GB',
      });
      contexts.push(context);
      context.setDefaultTimeout(open.timeoutMs ?? 15_000);
      for (const script of open.init ?? []) await context.addInitScript(script);
      return context;
    },
    async open(open: OpenOptions = {}) {
      const page = await (await suite.newContext(open)).newPage();
      await page.goto(open.url ?? suite.harness.server.url);
      return page;
    },
  };
  return suite;
}
