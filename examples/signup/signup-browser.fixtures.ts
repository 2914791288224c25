import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
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

/** Test policies: 3 attempts, a 3 s resend cooldown. */
export const testPolicies = { maxAttempts: 3, resendCooldownMs: 3000 } as const;

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
