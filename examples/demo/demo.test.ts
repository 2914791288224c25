import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

describe('pnpm demo', () => {
  it('runs every flow end to end on the real wire and exits 0', async () => {
    const { stdout } = await run(process.execPath, ['--conditions=@verikit/source', '--import', 'tsx', 'examples/demo/demo.ts'], {
      cwd: root,
      timeout: 30_000,
    });
    // The USSD flow is verified by the sandbox's signed webhook, delivered over HTTP.
    expect(stdout).toMatch(/ussd +\S+ v3 verified/);
    expect(stdout).toMatch(/webhook msg_\S+: HTTP 200 after 1 attempt/);
    expect(stdout).toMatch(/phone +\S+ v6 verified/);
    expect(stdout).toMatch(/identity +\S+ v3 verified/);
    expect(stdout).toMatch(/identity +\S+ v5 locked · attempts left 0/);
    expect(stdout).toMatch(/phone +\S+ v2 expired/);
    expect(stdout).toContain('outbox: ussd, phone-code, identity-otp, identity-otp, phone-code, sms, whatsapp');
    expect(stdout.trimEnd().endsWith('Done.')).toBe(true);
    // The masked BVN is shown; the full one never is.
    expect(stdout).toContain('*******2222');
    expect(stdout).not.toContain('22222222222');
  }, 40_000);
});
