import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { capture } from './cli.fixtures.js';
import { runCli } from './run-cli.js';

// A whole (short) run on a shared machine: a generous timeout, never a limit on speed (`pnpm bench simulator`).
describe('verikit simulate', { timeout: 120_000 }, () => {
  it('prints the table of a shipped scenario in short mode, the same for the same seed', async () => {
    const first = capture();
    expect(await runCli(['simulate', 'pumping-attack', '--short', '--seed', '3'], first)).toBe(0);
    expect(first.lines[0]).toMatch(/^scenario\s+flows\s+people\s+verified\s+verified ≤300s\s+p50 s\s+p95 s/);
    expect(first.lines[2]).toMatch(/^pumping-attack\s+200\s/);
    const again = capture();
    await runCli(['simulate', 'pumping-attack', '--short', '--seed', '3'], again);
    expect(again.lines).toEqual(first.lines);
  });

  it('names the bad field of a scenario file, and a bad flag', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'verikit-simulate-'));
    const file = join(folder, 'bad.yaml');
    writeFileSync(file, 'name: bad\ndescription: a scenario with a typo in it, for the test\nflows: ten\n');
    const io = capture();
    expect(await runCli(['simulate', file], io)).toBe(2);
    expect(io.errors[0]).toMatch(/^verikit simulate: flows /);
    const flag = capture();
    expect(await runCli(['simulate', 'baseline', '--channels', 'sms,fax'], flag)).toBe(2);
    expect(flag.errors[0]).toBe(
      'verikit simulate: --channels must be up to 3 of sms, voice, whatsapp, comma-separated',
    );
    const escalate = capture();
    expect(await runCli(['simulate', 'baseline', '--escalate-after', '10'], escalate)).toBe(2);
    expect(escalate.errors[0]).toBe('verikit simulate: --escalate-after must be 0 or from 15 to 900');
    const missing = capture();
    expect(await runCli(['simulate', join(folder, 'none.yaml')], missing)).toBe(2);
    expect(missing.errors[0]).toMatch(/^verikit simulate: scenario is neither a file nor a shipped scenario/);
  });
});
