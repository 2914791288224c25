import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { freshPhoneNumber } from '@verikit/testing';
import {
  browserTestsSkipReason,
  digits,
  flowStatus,
  recordEvents,
  screenshot,
  startPhoneVerification,
  useBrowserSuite,
} from './signup-browser.fixtures.js';
import { expectUsableScreen } from '../../scripts/page-checks.js';

// Codes that fill themselves (issue 36): WebOTP needs an SMS reaching an Android phone, which no headless browser
// has, so this stand-in defines `OTPCredential` and `navigator.credentials.get` in the page. It records each call
// and delivers a message the way the WICG draft says a browser may (packages/client/src/one-time-codes/REFERENCE.md):
// only when its last line is `@<this page's host> #<code>`; a message bound to another host never reaches the page.
const webOtpStandIn = `
  window.OTPCredential = function OTPCredential() {};
  window.__otpCalls = [];
  window.__otpAborted = 0;
  const waiting = new Set();
  navigator.credentials.get = (options) => {
    window.__otpCalls.push({ transport: options?.otp?.transport, signal: options?.signal instanceof AbortSignal });
    return new Promise((resolve, reject) => {
      const waiter = { resolve };
      waiting.add(waiter);
      options?.signal?.addEventListener('abort', () => {
        window.__otpAborted += 1;
        waiting.delete(waiter);
        reject(new DOMException('The operation was aborted.', 'AbortError'));
      });
    });
  };
  window.__otpPending = () => waiting.size;
  window.__deliverSms = (text) => {
    const line = text.replace(/\\r\\n?/g, '\\n').split('\\n').at(-1);
    const bound = /^@(\\S+) #(\\S+)( @\\S+)?/.exec(line);
    if (bound === null || bound[3] !== undefined || bound[1] !== location.hostname || waiting.size === 0) return 'not delivered';
    for (const waiter of waiting) waiter.resolve({ type: 'otp', id: '', code: bound[2] });
    waiting.clear();
    return 'delivered';
  };
`;

/** A browser without WebOTP (Firefox, Safari, desktop Chrome as some builds ship it): no `OTPCredential`. */
const noWebOtp = `delete window.OTPCredential; window.__otpCalls = []; const get = navigator.credentials?.get?.bind(navigator.credentials);
  if (get) navigator.credentials.get = (options) => { window.__otpCalls.push(options); return get(options); };`;

/** Text pasted into the focused field, as a paste from the clipboard arrives. */
async function paste(page: Page, text: string): Promise<void> {
  await page.evaluate(`(() => {
    const data = new DataTransfer();
    data.setData('text/plain', ${JSON.stringify(text)});
    document.activeElement.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  })()`);
}

const otpCalls = (page: Page) => page.evaluate('window.__otpCalls') as Promise<unknown[]>;

describe.skipIf(browserTestsSkipReason() !== undefined)('codes that fill themselves (Chromium, 360 px)', () => {
  const suite = useBrowserSuite();
  const phone = { width: 360, height: 740 };

  it('WebOTP: the SMS bound to this site fills the code and submits it, once, with no key pressed; the wait is aborted when the code screen goes', async () => {
    const page = await suite.open({ viewport: phone, init: [webOtpStandIn] });
    const events = recordEvents(page);
    const phoneNumber = freshPhoneNumber();
    await startPhoneVerification(page, phoneNumber, 'phone');
    await flowStatus(page, 'awaiting-code');
    await expect.poll(() => otpCalls(page)).toEqual([{ transport: ['sms'], signal: true }]);
    const code = suite.harness.sandbox.lastCode(phoneNumber)!;

    expect(
      await page.evaluate(`window.__deliverSms(${JSON.stringify(`${code} is your code.\n\n@127.0.0.1 #${code}`)})`),
    ).toBe('delivered');
    await flowStatus(page, 'verified');
    expect(events).toEqual(['submit-code']);
    // Once the code screen is gone nothing waits for an SMS: every wait started was answered or aborted.
    await expect.poll(() => page.evaluate('window.__otpPending()')).toBe(0);
    expect(await page.evaluate('window.__otpAborted')).toBeGreaterThan(0);
    for (const call of await otpCalls(page)) expect(call).toEqual({ transport: ['sms'], signal: true });
  }, 30_000);

  it('a code bound to another site never reaches the page, and pasted it is refused and said so; the right one pasted verifies', async () => {
    const page = await suite.open({ viewport: phone, init: [webOtpStandIn] });
    const events = recordEvents(page);
    const phoneNumber = freshPhoneNumber();
    await startPhoneVerification(page, phoneNumber, 'phone');
    await flowStatus(page, 'awaiting-code');
    const code = suite.harness.sandbox.lastCode(phoneNumber)!;
    const phishing = `${code} is your code.\n\n@verikit-login.example #${code}`;
    await expect.poll(() => otpCalls(page)).toHaveLength(1);
    expect(await page.evaluate(`window.__deliverSms(${JSON.stringify(phishing)})`)).toBe('not delivered');

    await page.getByRole('textbox', { name: 'Digit 1 of 6' }).focus();
    await paste(page, phishing);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe(
      'That code was sent for verikit-login.example, not this site. Do not use it here: enter the code we sent you.',
    );
    expect(await digits(page)).toBe('');
    expect(await page.getByRole('textbox', { name: 'Digit 1 of 6' }).getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByRole('textbox', { name: 'Digit 1 of 6' }).getAttribute('aria-describedby')).toBe(
      'code-foreign code-help',
    );
    await expectUsableScreen(page, 'a code sent for another site');
    await screenshot(page, 'code-other-site');
    expect(events).toEqual([]);

    // The whole message of this site pasted: its code, not every digit in the text.
    await paste(page, `Your code is ${code}. It expires in 10 minutes.\n\n@127.0.0.1 #${code}`);
    await flowStatus(page, 'verified');
    expect(events).toEqual(['submit-code']);
  }, 30_000);

  it('in French, the refusal speaks French', async () => {
    const page = await suite.open({ viewport: { width: 320, height: 640 }, locale: 'fr-FR', init: [webOtpStandIn] });
    const phoneNumber = freshPhoneNumber();
    await page.getByLabel('Numéro de téléphone').fill(phoneNumber);
    await page.getByRole('button', { name: 'Vérifier mon numéro' }).click();
    await flowStatus(page, 'awaiting-code');
    await page.getByRole('textbox', { name: 'Chiffre 1 sur 6' }).focus();
    await paste(page, `Code\n\n@verikit-login.example #${suite.harness.sandbox.lastCode(phoneNumber)}`);
    await page
      .getByRole('alert')
      .getByText(
        "Ce code a été envoyé pour verikit-login.example, pas pour ce site. Ne l'utilisez pas ici : saisissez le code que nous vous avons envoyé.",
      )
      .waitFor();
    await expectUsableScreen(page, 'a code sent for another site, in French');
  }, 30_000);

  it('without WebOTP the browser is never asked, and the code is typed as always', async () => {
    const page = await suite.open({ viewport: phone, init: [noWebOtp] });
    const phoneNumber = freshPhoneNumber();
    await startPhoneVerification(page, phoneNumber, 'phone');
    await flowStatus(page, 'awaiting-code');
    await page.getByRole('textbox', { name: 'Digit 1 of 6' }).focus();
    await page.keyboard.type(suite.harness.sandbox.lastCode(phoneNumber)!);
    await flowStatus(page, 'verified');
    expect(await otpCalls(page)).toEqual([]);
  }, 30_000);
});
