/**
 * The sandbox's attempt limit against the engine's (issue 17, finding 10; decision 1410), over real HTTP: an
 * engine that allows 7 wrong codes on a sandbox that allows 5 locks the flow at the sandbox's fifth, says so in one
 * warning naming both limits, and never reads the right code as wrong.
 */
import { createVerikit } from '@verikit/core';
import type { Logger } from '@verikit/provider';
import { expectNoSecrets, freshPhoneNumber } from '@verikit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayOver } from './gateway.fixtures.js';
import { startGatewayFake, type GatewayFake } from './fake/start-gateway-fake.js';

interface Line {
  readonly level: string;
  readonly message: string;
  readonly fields: Record<string, unknown> | undefined;
}

function recordingLogger(lines: Line[]): Logger {
  const record = (level: string) => (message: string, fields?: Record<string, unknown>) => {
    lines.push({ level, message, fields });
  };
  return { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
}

/** A code that is not `code`, of its length. */
const wrongCode = (code: string) => (code === '000000' ? '111111' : '000000');

describe('the sandbox allows fewer wrong codes than the engine (real HTTP)', () => {
  let sandbox: GatewayFake;
  beforeAll(async () => {
    sandbox = await startGatewayFake({ maxAttempts: 5 });
  });
  afterAll(() => sandbox.close());

  /** An engine with `maxAttempts` on the sandbox, and what it logs. */
  function engine(maxAttempts: number) {
    const lines: Line[] = [];
    const verikit = createVerikit({
      provider: gatewayOver(sandbox),
      secret: 'attempts-differ-test-secret-0123456789abcdef',
      policies: { maxAttempts },
      logger: recordingLogger(lines),
    });
    return { verikit, lines, differ: () => lines.filter((line) => line.message === 'verikit.flow.attempts-differ') };
  }

  it('engine 7, sandbox 5: the fifth wrong code locks the flow, with one warning naming both limits', async () => {
    const { verikit, lines, differ } = engine(7);
    const phoneNumber = freshPhoneNumber();
    const { id } = await verikit.start({ kind: 'phone', phoneNumber });
    const code = sandbox.lastCode(phoneNumber)!;
    for (let left = 6; left >= 3; left -= 1) {
      const view = await verikit.send(id, { type: 'submit-code', code: wrongCode(code) });
      expect(view).toMatchObject({ status: 'awaiting-code', attemptsLeft: left, error: { code: 'code_invalid' } });
    }
    expect(differ()).toEqual([]);

    // The sandbox's last try: it locks the code and says so; the engine, with 3 left, locks the flow too.
    const locked = await verikit.send(id, { type: 'submit-code', code: wrongCode(code) });
    expect(locked).toMatchObject({
      status: 'locked',
      done: true,
      attemptsLeft: 0,
      error: { code: 'attempts_exhausted' },
    });
    // The right code now is refused as an event of a locked flow, never answered "not correct".
    await expect(verikit.send(id, { type: 'submit-code', code })).rejects.toThrow();
    expect((await verikit.get(id)).status).toBe('locked');

    expect(differ()).toEqual([
      {
        level: 'warn',
        message: 'verikit.flow.attempts-differ',
        fields: {
          flowId: id,
          provider: 'gateway',
          providerMaxAttempts: 5,
          engineMaxAttempts: 7,
          wrongCodes: 5,
          hint: expect.stringMatching(/maxAttempts is 7.*--max-attempts or VERIKIT_MAX_ATTEMPTS/),
        },
      },
    ]);
    // No code and no phone number in clear in anything logged.
    expectNoSecrets(lines, [code, wrongCode(code), phoneNumber, phoneNumber.slice(1)]);
  });

  it('engine 5, sandbox 5: the fifth wrong code locks the flow, and nothing is said', async () => {
    const { verikit, differ } = engine(5);
    const phoneNumber = freshPhoneNumber();
    const { id } = await verikit.start({ kind: 'phone', phoneNumber });
    const code = sandbox.lastCode(phoneNumber)!;
    for (let left = 4; left >= 1; left -= 1)
      expect(await verikit.send(id, { type: 'submit-code', code: wrongCode(code) })).toMatchObject({
        attemptsLeft: left,
      });
    expect(await verikit.send(id, { type: 'submit-code', code: wrongCode(code) })).toMatchObject({
      status: 'locked',
      attemptsLeft: 0,
    });
    expect(differ()).toEqual([]);
  });

  it('engine 3, sandbox 5: the engine locks first, and nothing is said', async () => {
    const { verikit, differ } = engine(3);
    const phoneNumber = freshPhoneNumber();
    const { id } = await verikit.start({ kind: 'phone', phoneNumber });
    const code = sandbox.lastCode(phoneNumber)!;
    for (let i = 0; i < 3; i += 1) await verikit.send(id, { type: 'submit-code', code: wrongCode(code) });
    expect(await verikit.get(id)).toMatchObject({ status: 'locked', error: { code: 'code_invalid' } });
    expect(differ()).toEqual([]);
  });
});
