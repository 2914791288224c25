import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createVerikit } from '@verikit/core';
import { createAfricasTalkingProvider, createCallbackAllowList } from '@verikit/africastalking';
import { startAfricasTalkingFake } from '@verikit/africastalking/fake';
import { freshPhoneNumber } from '@verikit/testing';
import { InvalidInputError } from '@verikit/provider';
import { toNodeHandler } from '../node/node-adapter.js';
import { createDialInHandler, defaultDialInScreens, type DialInHandlerOptions } from './create-dial-in-handler.js';
import { startDialInServer } from './dial-in-route.fixtures.js';

// The dial-in route over real HTTP: the Africa's Talking fake dials as the network would (form-encoded session
// requests to the callback URL), the route answers CON/END in the same exchange.

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function setupDialIn(allowed: readonly string[] = ['127.0.0.1'], extra: Partial<DialInHandlerOptions> = {}) {
  const fake = await startAfricasTalkingFake();
  closers.push(() => fake.close());
  const provider = createAfricasTalkingProvider(fake.settings);
  const verikit = createVerikit({ provider, secret: 'dial-in-route-test-secret-0123456789' });
  const handler = createDialInHandler({ verikit, allowList: createCallbackAllowList(allowed), ...extra });
  const server = createServer(toNodeHandler(handler)).listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ussd`;
  fake.setCallbackUrl(url);
  /** Posts a session request as Africa's Talking would, by hand. */
  const post = (fields: Record<string, string>) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
  return { fake, verikit, url, post };
}

describe('the dial-in route', () => {
  it('verifies the flow when its number dials the code, answering END on the handset', async () => {
    const { fake, verikit } = await setupDialIn();
    const phoneNumber = freshPhoneNumber();
    const started = await verikit.start({ kind: 'dial-in', phoneNumber });
    const screen = await fake.dial({ phoneNumber, code: started.ussdCode! });
    expect(screen).toMatchObject({ outcome: 'answered', kind: 'END', screen: defaultDialInScreens.verified });
    expect((await verikit.get(started.id)).status).toBe('verified');
  });

  it('asks for the reference when only the service code was dialled, then verifies', async () => {
    const { fake, verikit } = await setupDialIn();
    const phoneNumber = freshPhoneNumber();
    const started = await verikit.start({ kind: 'dial-in', phoneNumber });
    const first = await fake.dial({ phoneNumber, code: fake.serviceCode });
    expect(first).toMatchObject({ kind: 'CON', screen: defaultDialInScreens.askReference });
    const reference = /\*(\d+)#$/.exec(started.ussdCode!)![1]!;
    expect(await fake.reply(first.sessionId, reference)).toMatchObject({
      kind: 'END',
      screen:
        'Your number is confirmed for the app. If you did not start this yourself in the app, contact the app now.',
    });
    expect((await verikit.get(started.id)).status).toBe('verified');
  });

  it('names the app and what is confirmed on the handset (appName): a phished user sees whose app it is', async () => {
    const { fake, verikit } = await setupDialIn(['127.0.0.1'], { appName: 'Acme Bank' });
    const phoneNumber = freshPhoneNumber();
    const started = await verikit.start({ kind: 'dial-in' });
    const first = await fake.dial({ phoneNumber, code: fake.serviceCode });
    expect(first).toMatchObject({
      kind: 'CON',
      screen: 'To confirm this phone number for Acme Bank, enter the reference Acme Bank shows you:',
    });
    const reference = /\*(\d+)#$/.exec(started.ussdCode!)![1]!;
    expect(await fake.reply(first.sessionId, reference)).toMatchObject({
      kind: 'END',
      screen:
        'Your number is confirmed for Acme Bank. If you did not start this yourself in Acme Bank, contact Acme Bank now.',
    });
    const { verikit: other } = await setupDialIn();
    for (const appName of ['', ' Acme', 'A'.repeat(31), 'Acme\nBank', 7])
      expect(() =>
        createDialInHandler({
          verikit: other,
          allowList: createCallbackAllowList(['127.0.0.1']),
          appName: appName as string,
        }),
      ).toThrow(expect.objectContaining({ code: 'invalid_input', field: 'appName' }));
  });

  it('attacker: dialling the victim’s code from another number verifies nothing', async () => {
    const { fake, verikit } = await setupDialIn();
    const started = await verikit.start({ kind: 'dial-in', phoneNumber: freshPhoneNumber() });
    const screen = await fake.dial({ phoneNumber: freshPhoneNumber(), code: started.ussdCode! });
    expect(screen).toMatchObject({ kind: 'END', screen: defaultDialInScreens.notValid });
    expect((await verikit.get(started.id)).status).toBe('awaiting-dial');
  });

  it('attacker: a forged session request from an address outside the allow-list is refused before it is read', async () => {
    const { fake, verikit } = await setupDialIn(['203.0.113.0/24']);
    const phoneNumber = freshPhoneNumber();
    const started = await verikit.start({ kind: 'dial-in', phoneNumber });
    expect(await fake.dial({ phoneNumber, code: started.ussdCode! })).toMatchObject({
      outcome: 'http-error',
      status: 403,
    });
    expect((await verikit.get(started.id)).status).toBe('awaiting-dial');
  });

  it('attacker: a forged request with an unknown reference, and one for another service code, verify nothing', async () => {
    const { post, verikit, fake } = await setupDialIn();
    const phoneNumber = freshPhoneNumber();
    const started = await verikit.start({ kind: 'dial-in', phoneNumber });
    const fields = { sessionId: 'ATUid_forged', serviceCode: fake.serviceCode, phoneNumber, networkCode: '62130' };
    const guessed = await post({ ...fields, text: '000000' });
    expect([guessed.status, await guessed.text()]).toEqual([200, `END ${defaultDialInScreens.notValid}`]);
    const reference = /\*(\d+)#$/.exec(started.ussdCode!)![1]!;
    const other = await post({ ...fields, sessionId: 'ATUid_other', serviceCode: '*999#', text: reference });
    expect(other.status).toBe(400);
    expect((await verikit.get(started.id)).status).toBe('awaiting-dial');
  });

  it('attacker: many wrong references from an allowed address are refused after the limit, the right one too', async () => {
    const { post, verikit, fake } = await setupDialIn();
    const phoneNumber = freshPhoneNumber();
    const started = await verikit.start({ kind: 'dial-in' });
    const reference = /\*(\d+)#$/.exec(started.ussdCode!)![1]!;
    const fields = { serviceCode: fake.serviceCode, phoneNumber, networkCode: '62130' };
    const screens: string[] = [];
    for (let guess = 0; guess < 8; guess += 1) {
      const text = String((Number(reference) + 1 + guess) % 100_000_000).padStart(8, '0');
      screens.push(await (await post({ ...fields, sessionId: `ATUid_guess_${guess}`, text })).text());
    }
    expect(screens).toEqual([
      ...Array.from({ length: 5 }, () => `END ${defaultDialInScreens.notValid}`),
      ...Array.from({ length: 3 }, () => `END ${defaultDialInScreens.tooManyTries}`),
    ]);
    const right = await post({ ...fields, sessionId: 'ATUid_right', text: reference });
    expect(await right.text()).toBe(`END ${defaultDialInScreens.tooManyTries}`);
    expect((await verikit.get(started.id)).status).toBe('awaiting-dial');
  });

  it('attacker: a replayed session request is answered as used and changes nothing', async () => {
    const { post, verikit, fake } = await setupDialIn();
    const phoneNumber = freshPhoneNumber();
    const started = await verikit.start({ kind: 'dial-in', phoneNumber });
    const reference = /\*(\d+)#$/.exec(started.ussdCode!)![1]!;
    const fields = { sessionId: 'ATUid_replayed', serviceCode: fake.serviceCode, phoneNumber, text: reference };
    expect(await (await post(fields)).text()).toBe(`END ${defaultDialInScreens.verified}`);
    const version = (await verikit.get(started.id)).version;
    expect(await (await post(fields)).text()).toBe(`END ${defaultDialInScreens.alreadyUsed}`);
    expect((await verikit.get(started.id)).version).toBe(version);
  });

  it('refuses malformed requests with a status, not a screen', async () => {
    const { post, url } = await setupDialIn();
    expect((await post({ sessionId: 'ATUid_x', serviceCode: '*384*1234#' })).status).toBe(400);
    expect((await fetch(url)).status).toBe(405);
    const json = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(json.status).toBe(415);
  });

  it('is refused at creation without an allow-list, or for an engine without dial-in', async () => {
    const fake = await startAfricasTalkingFake();
    closers.push(() => fake.close());
    const secret = 'dial-in-route-test-secret-0123456789';
    const withDialIn = createVerikit({
      provider: createAfricasTalkingProvider(fake.settings),
      secret,
    });
    const without = createVerikit({
      provider: createAfricasTalkingProvider({ ...fake.settings, ussdServiceCode: undefined }),
      secret,
    });
    const allowList = createCallbackAllowList(['127.0.0.1']);
    expect(() => createDialInHandler({ verikit: withDialIn } as never)).toThrow(InvalidInputError);
    expect(() => createDialInHandler({ verikit: without, allowList })).toThrow(/dialIn/);
    expect(() =>
      createDialInHandler({ verikit: withDialIn, allowList, screens: { verified: 'é'.repeat(10) } }),
    ).toThrow(/screens.verified/);
  });
});

describe('docs/http.md, "Dial-in route"', () => {
  it('shows the route exactly as the fixture this test serves a dial with', async () => {
    const page = readFileSync(new URL('../../../../docs/http.md', import.meta.url), 'utf8');
    const fixture = readFileSync(new URL('./dial-in-route.fixtures.ts', import.meta.url), 'utf8');
    expect(page).toContain(
      fixture.slice(fixture.indexOf('// snippet:start\n') + 17, fixture.indexOf('// snippet:end')).trim(),
    );
    const fake = await startAfricasTalkingFake();
    closers.push(() => fake.close());
    const provider = createAfricasTalkingProvider(fake.settings);
    const verikit = createVerikit({ provider, secret: 'dial-in-route-test-secret-0123456789' });
    const server = startDialInServer(verikit, ['127.0.0.1', '::1']).listen(0, '127.0.0.1');
    await once(server, 'listening');
    closers.push(() => new Promise((resolve) => server.close(resolve)));
    fake.setCallbackUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    const phoneNumber = freshPhoneNumber();
    const started = await verikit.start({ kind: 'dial-in', phoneNumber });
    expect(await fake.dial({ phoneNumber, code: started.ussdCode! })).toMatchObject({
      kind: 'END',
      outcome: 'answered',
    });
    expect((await verikit.get(started.id)).status).toBe('verified');
  });
});
