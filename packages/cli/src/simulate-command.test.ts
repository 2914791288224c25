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

  it('compares routing with the cost objective, cost per verified person beside each verified share', async () => {
    const io = capture();
    const args = ['simulate', 'routing-drift', '--compare-routing', '--objective', 'cost', '--flows', '120'];
    expect(await runCli([...args, '--seed', '1'], io)).toBe(0);
    expect(io.lines[2]).toBe('| design | verified | NGN per verified person | double sends |');
    expect(io.lines[4]).toMatch(/^\| learning \(objective: cost\) \| \d+\.\d% \| \d+\.\d{2} \| 0 \|$/);
    // Twilio first (40 NGN a code) costs several times what the gateway first (4 NGN) does per verified person.
    const cost = (first: string) => Number(io.lines.find((line) => line.startsWith(`| ${first}, `))!.split(' | ')[2]);
    expect(cost('twilio')).toBeGreaterThan(4 * cost('gateway'));
    const byShare = capture();
    expect(await runCli([...args.slice(0, 3), '--flows', '120', '--seed', '1'], byShare)).toBe(0);
    expect(byShare.lines[4]).toMatch(/^\| learning \| /);
    const bad = capture();
    expect(await runCli([...args.slice(0, 4), 'cheap'], bad)).toBe(2);
    expect(bad.errors[0]).toBe('verikit simulate: --objective must be verified or cost');
    const alone = capture();
    expect(await runCli(['simulate', 'routing-drift', '--objective', 'cost'], alone)).toBe(2);
    expect(alone.errors[0]).toBe('verikit simulate: --objective is an option of --compare-routing');
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
