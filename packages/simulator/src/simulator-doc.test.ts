import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseScenario, runSimulation } from './index.js';

const page = readFileSync(new URL('../../../docs/simulator.md', import.meta.url), 'utf8');
const fixture = readFileSync(new URL('./simulator-doc.fixtures.ts', import.meta.url), 'utf8');

// Whole runs on a shared machine: generous timeouts, never a limit on speed.
describe('docs/simulator.md', { timeout: 120_000 }, () => {
  it('shows the code snippet exactly as the file this test runs, and it prints a table', async () => {
    const snippet = fixture.slice(fixture.indexOf('// snippet:start\n') + 17, fixture.indexOf('// snippet:end'));
    expect(page).toContain(`\`\`\`ts\n${snippet}\`\`\``);
    const { table } = await import('./simulator-doc.fixtures.js');
    expect(table.split('\n')).toHaveLength(4);
    expect(table).toMatch(/\ndnd-heavy\s+300\s/);
  });

  it('has a scenario that loads and runs as written', async () => {
    const yaml = /```yaml\n([\s\S]*?)```/.exec(page)![1]!;
    const scenario = parseScenario(parse(yaml));
    expect(scenario.operators.map((operator) => operator.name)).toEqual(['MTN', 'Glo']);
    const result = await runSimulation(scenario, { flows: 80 });
    expect(result.people).toBe(80);
    expect(result.verified).toBeGreaterThan(0);
  });
});
