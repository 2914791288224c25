import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { capture } from './cli.fixtures.js';
import { runCli } from './run-cli.js';

describe('verikit replay', { timeout: 300_000 }, () => {
  it('prints attacker sends, people refused and money, the same for the same seed', async () => {
    const first = capture();
    expect(await runCli(['replay', 'pumping-million', '--short'], first)).toBe(0);
    expect(first.lines[0]).toBe('pumping-million (seed 1): 20000 starts');
    expect(first.lines.join('\n')).toMatch(/attacker sends: \d+/);
    expect(first.lines.join('\n')).toMatch(/real people refused: \d+ of \d+/);
    expect(first.lines.join('\n')).toMatch(/money spent: [\d.]+ NGN/);
    expect(first.errors.join('\n')).toMatch(/replayed \d+ starts per CPU-second/);
    const again = capture();
    await runCli(['replay', 'pumping-million', '--short'], again);
    expect(again.lines).toEqual(first.lines);
  });

  it("replays with the user's own guard file, and names what is wrong", async () => {
    const folder = mkdtempSync(join(tmpdir(), 'verikit-replay-'));
    const guard = join(folder, 'guard.json');
    writeFileSync(guard, JSON.stringify({ perPrefix: false, global: false }));
    const io = capture();
    expect(await runCli(['replay', 'pumping-million', '--short', '--guard', guard], io)).toBe(0);
    expect(io.lines.join('\n')).toMatch(/trips: 0 per prefix/);
    const bad = capture();
    writeFileSync(guard, JSON.stringify({ tripwire: { mode: 'off' } }));
    expect(await runCli(['replay', 'pumping-million', '--short', '--guard', guard], bad)).toBe(2);
    expect(bad.errors.join('\n')).toMatch(/tripwire\.mode/);
    const missing = capture();
    expect(await runCli(['replay', 'nothing-here'], missing)).toBe(2);
    expect(missing.errors.join('\n')).toMatch(/neither a file nor shipped traffic/);
  });
});
