import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createVerikit } from '@verikit/core';
import { createAfricasTalkingProvider } from '@verikit/africastalking';
import { startAfricasTalkingFake } from '@verikit/africastalking/fake';
import { freshPhoneNumber } from '@verikit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultDialInScreens } from './create-dial-in-handler.js';
import { startDialInServer } from './dial-in-route.fixtures.js';

// Issue 35, finding 10: what a user types reaches the route, which answers with a screen. Input with `.`, `@` or
// `-`, or longer than 182 characters, was refused by Africa's Talking's parser with a bare 400, so the carrier ended
// the session with no screen, while other wrong input got "not valid". Now every typed input gets the same screen.
let fake: Awaited<ReturnType<typeof startAfricasTalkingFake>>;
let server: ReturnType<typeof startDialInServer>;
let verikit: ReturnType<typeof createVerikit>;
let callbackUrl: string;
beforeAll(async () => {
  fake = await startAfricasTalkingFake();
  verikit = createVerikit({
    provider: createAfricasTalkingProvider(fake.settings),
    secret: 'dial-in-typed-input-test-secret-0123456789',
  });
  server = startDialInServer(verikit, ['127.0.0.1']).listen(0, '127.0.0.1');
  await once(server, 'listening');
  callbackUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ussd`;
  fake.setCallbackUrl(callbackUrl);
});
afterAll(async () => {
  await fake.close();
  await new Promise((resolve) => server.close(resolve));
});

describe('the dial-in route: whatever the user types gets a screen', () => {
  const inputs = ['58.39', 'me@example', '58-39', 'été', 'abc', 'x'.repeat(182)];
  it.each(inputs.map((input) => [input.slice(0, 20), input]))(
    '%s: "not valid" on the handset, the session ended with a screen, nothing verified',
    async (_label, input) => {
      const phoneNumber = freshPhoneNumber();
      const started = await verikit.start({ kind: 'dial-in', phoneNumber });
      const first = await fake.dial({ phoneNumber, code: fake.serviceCode });
      expect(first).toMatchObject({ kind: 'CON', screen: defaultDialInScreens.askReference });
      const screen = await fake.reply(first.sessionId, input);
      expect(screen).toMatchObject({ outcome: 'answered', kind: 'END', screen: defaultDialInScreens.notValid });
      expect((await verikit.get(started.id)).status).toBe('awaiting-dial');
    },
  );

  it('a session whose text grew past 182 characters (answers joined by *) gets the screen too', async () => {
    const phoneNumber = freshPhoneNumber();
    const started = await verikit.start({ kind: 'dial-in', phoneNumber });
    const answer = await fetch(callbackUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        sessionId: 'ATUid_long',
        serviceCode: fake.serviceCode,
        phoneNumber,
        networkCode: '62130',
        text: `${'1'.repeat(150)}*${'9'.repeat(150)}`,
      }).toString(),
    });
    expect([answer.status, await answer.text()]).toEqual([200, `END ${defaultDialInScreens.notValid}`]);
    expect((await verikit.get(started.id)).status).toBe('awaiting-dial');
  });
});
