import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createAfricasTalkingProvider, createCallbackAllowList } from '@verikit/africastalking';
import type { AfricasTalkingFake } from '@verikit/africastalking/fake';
import { createVerikit, type Verikit } from '@verikit/core';
import { createDialInHandler, toNodeHandler } from '@verikit/http';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capture } from './cli.fixtures.js';
import { runCli } from './run-cli.js';
import { openInbox, skipWithoutChromium } from './inbox-browser.fixtures.js';

// Without Chromium the test is skipped with the reason, except under CI=true, where it fails.
const skip = skipWithoutChromium("the Africa's Talking inbox browser test");

const smsNumber = '+254711000301';
const dialNumber = '+254711000302';
const replyNumber = '+254711000303';

describe.skipIf(skip)("the Africa's Talking sandbox inbox in a browser", () => {
  let app: Server;
  let fake: AfricasTalkingFake;
  let verikit: Verikit;
  let browser: Browser;
  let page: Page;
  const focusedId = () => page.evaluate<string>("document.activeElement?.id ?? ''");

  beforeAll(async () => {
    // The app: its USSD callback is createDialInHandler, the route `--webhook-url` names.
    let route: ((request: IncomingMessage, response: ServerResponse) => void) | undefined;
    app = createServer((request, response) => route!(request, response)).listen(0, '127.0.0.1');
    await once(app, 'listening');
    const callbackUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/ussd`;
    const io = capture();
    const run = await runCli(['sandbox', '--provider', 'africastalking', '--webhook-url', callbackUrl], io);
    if (typeof run === 'number' || run.provider !== 'africastalking') throw new Error(io.errors.join('\n'));
    fake = run.fake;
    expect(io.lines).toContain(
      `inbox: ${fake.url}/__inbox  (open it in a browser: what the phones received, dialling your USSD callback, the callbacks sent)`,
    );
    verikit = createVerikit({
      provider: createAfricasTalkingProvider(fake.settings),
      secret: 'an-engine-secret-for-the-at-inbox-test-0123456789',
    });
    route = toNodeHandler(createDialInHandler({ verikit, allowList: createCallbackAllowList(['127.0.0.1']) }));
    ({ browser, page } = await openInbox(fake.inboxUrl!));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await fake?.close();
    await new Promise((resolve) => app?.close(resolve));
  });

  it('shows an SMS as it arrives, under its number, with the code its text carries, and announces it', async () => {
    await expect.poll(() => page.getByText('No message yet').count()).toBe(1);
    await verikit.sendSms({ to: smsNumber, message: 'Your Acme code is 583921' });
    const number = page.getByRole('region', { name: new RegExp(`^\\${smsNumber}`) });
    await expect.poll(() => number.locator('.code').first().textContent()).toBe('583921');
    await expect.poll(() => page.locator('#announcer').textContent()).toBe('1 new message');
  });

  it('dials a dial-in flow’s code from the keyboard, as the phone would: the flow is verified, the callback shown', async () => {
    const flow = await verikit.start({ kind: 'dial-in', phoneNumber: dialNumber });
    // The first control of the page is the dial form's number, named by its label.
    await page.locator('body').focus();
    await page.keyboard.press('Tab');
    expect(await focusedId()).toBe('dial-phone');
    await page.keyboard.type(dialNumber);
    await page.keyboard.press('Tab');
    expect(await focusedId()).toBe('dial-code');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type(flow.ussdCode!);
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.locator('#dial-result').textContent())
      .toMatch(/^Ended by the application\. Screen: Your number is confirmed/);
    expect(await page.locator('#announcer').textContent()).toMatch(/^Ended by the application\. Screen: Your/);
    expect((await verikit.get(flow.id)).status).toBe('verified');
    const session = page.locator('li.session').first();
    await expect.poll(() => session.textContent()).toContain(`${dialNumber} dialled ${flow.ussdCode}`);
    expect(await session.textContent()).toContain('ended by the application');
    const callback = page.locator('li.webhook').first();
    await expect.poll(() => callback.locator('.outcome').textContent()).toBe('delivered');
    expect(await callback.locator('.attempts').textContent()).toMatch(
      /Attempt 1 .*: HTTP 200 END Your number is confirmed/,
    );
    // What was typed stays in the form for the next dial; the screens are the session's, not messages.
    expect(await page.getByLabel('Phone number').inputValue()).toBe(dialNumber);
    expect(await page.locator(`#number-${dialNumber.slice(1)}`).count()).toBe(0);
  });

  it('dials the bare service code, then replies with the reference in the session’s reply field', async () => {
    const flow = await verikit.start({ kind: 'dial-in', phoneNumber: replyNumber });
    const reference = /\*(\d+)#$/.exec(flow.ussdCode!)![1]!;
    await page.getByLabel('Phone number').fill(replyNumber);
    await page.getByLabel('Code', { exact: true }).fill(fake.serviceCode);
    await page.getByRole('button', { name: 'Dial', exact: true }).press('Enter');
    const reply = page.getByRole('textbox', { name: 'Reply' });
    await expect.poll(() => reply.count()).toBe(1);
    // The session line (live, over the page's stream) and the dial's own answer come by two paths: wait for both.
    await expect.poll(() => page.locator('#dial-result').textContent()).toMatch(/^Waiting for a reply\. Screen: /);
    // From the Dial button, the reply field is the next stop.
    expect(await focusedId()).toBe('dial-submit');
    await page.keyboard.press('Tab');
    expect(await focusedId()).toBe(await reply.getAttribute('id'));
    await page.keyboard.type(reference);
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await verikit.get(flow.id)).status).toBe('verified');
    await expect.poll(() => reply.count()).toBe(0);
    // The reply field is gone with its session's end: focus goes to the session's line, not to the page's top.
    await expect.poll(focusedId).toMatch(/^session-ATUid/);
    await expect.poll(() => page.locator('#announcer').textContent()).toMatch(/^Ended by the application\. Screen: /);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    if (process.env.AT_INBOX_SCREENSHOT !== undefined) {
      // For docs/sandbox.md: a session waiting for its reply beside those done.
      await page.getByLabel('Phone number').fill('+254711000304');
      await page.getByRole('button', { name: 'Dial', exact: true }).click();
      await expect.poll(() => reply.count()).toBe(1);
      await page.locator('body').focus();
      await page.setViewportSize({ width: 900, height: 1100 });
      await page.screenshot({ path: process.env.AT_INBOX_SCREENSHOT, fullPage: true });
    }
  });
});
