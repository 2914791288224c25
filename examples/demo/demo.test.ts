import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

describe('pnpm demo', () => {
  it('runs every flow end to end on the real wire and exits 0', async () => {
    const { stdout } = await run(
      process.execPath,
      ['--conditions=@verikit/source', '--import', 'tsx', 'examples/demo/demo.ts'],
      {
        cwd: root,
        timeout: 30_000,
      },
    );
    // The USSD flow is verified by the sandbox's signed webhook, delivered over HTTP.
    expect(stdout).toMatch(/ussd +\S+ v3 verified/);
    expect(stdout).toMatch(/webhook msg_\S+: HTTP 200 after 1 attempt/);
    expect(stdout).toMatch(/phone +\S+ v6 verified/);
    expect(stdout).toMatch(/identity +\S+ v3 verified/);
    expect(stdout).toMatch(/identity +\S+ v5 locked · attempts left 0/);
    expect(stdout).toMatch(/phone +\S+ v2 expired/);
    expect(stdout).toContain('outbox: ussd, phone-code, identity-otp, identity-otp, phone-code, sms, whatsapp');
    expect(stdout.trimEnd().endsWith('Done.')).toBe(true);
    // Where the attempt counter moves, a line says why.
    const notes = stdout.split('\n').filter((line) => line.startsWith('    ↳ '));
    expect(notes).toEqual([
      '    ↳ wrong code: 4 attempts left',
      '    ↳ wrong code: 2 attempts left',
      '    ↳ wrong code: 1 attempt left',
      '    ↳ wrong code on the last attempt: no attempts left, the flow is locked',
    ]);
    expect(stdout).toMatch(
      /phone +\S+ v4 awaiting-code · attempts left 4 · \(code_invalid: [^)]+\) · \[can: submit-code, cancel\]\n {4}↳ wrong code: 4 attempts left\n/,
    );
    // No debug dumps: objects are never printed as they are.
    expect(stdout).toMatch(/ {2}sms: sent through gateway\n {2}whatsapp: sent through gateway\n/);
    for (const dump of ['[Object', '[object', '{', '}', 'undefined', 'null', '[Function', 'Symbol('])
      expect(stdout).not.toContain(dump);
    // The masked BVN is shown; the full one never is.
    expect(stdout).toContain('*******2222');
    expect(stdout).not.toContain('22222222222');
  }, 40_000);
});
