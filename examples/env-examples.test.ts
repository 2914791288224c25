import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The examples whose code reads process.env itself (signup and providers-per-env read theirs through a settings
// function; their own env-example tests check their files): each .env.example lists exactly the variables its
// code reads, each under a comment that says what it is, with values that work as copied.
const examples = ['better-auth', 'dial-in'] as const;

/** NODE_ENV is the Vite build's own switch in dial-in/server.ts, set and restored there: not a setting. */
const notSettings = new Set(['NODE_ENV']);

/** Every `process.env.NAME` or `process.env['NAME']` in the example's server code (not its page, not its tests). */
function variablesRead(dir: string, names = new Set<string>()): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules' && entry.name !== 'web') variablesRead(path, names);
    if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.test.ts')) continue;
    const source = readFileSync(path, 'utf8');
    for (const match of source.matchAll(/process\.env(?:\.([A-Z][A-Z0-9_]*)|\[['"]([A-Z][A-Z0-9_]*)['"]\])/g))
      names.add(match[1] ?? match[2]!);
  }
  return [...names].filter((name) => !notSettings.has(name)).sort();
}

describe.each(examples)('examples/%s/.env.example', (example) => {
  const dir = fileURLToPath(new URL(`./${example}/`, import.meta.url));
  const lines = readFileSync(join(dir, '.env.example'), 'utf8').split('\n');
  const entries = lines.flatMap((line, index) => {
    const match = /^(#\s*)?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    return match === null ? [] : [{ name: match[2]!, value: match[3]!, set: match[1] === undefined, index }];
  });

  it('lists exactly the variables the example reads, once each', () => {
    expect(entries.map((entry) => entry.name).sort()).toEqual(variablesRead(dir));
    expect(new Set(entries.map((entry) => entry.name)).size).toBe(entries.length);
  });

  it('says what each variable is, on the comment line above it', () => {
    for (const { name, index } of entries) {
      const above = lines[index - 1]?.trim() ?? '';
      expect(above, name).toMatch(/^# [A-Z(a-z]/);
      expect(above, name).not.toMatch(/^#\s*[A-Z][A-Z0-9_]*=/);
    }
  });

  it('works as copied: PORT is a port, and a secret left blank is commented out', () => {
    for (const { name, value, set } of entries) {
      if (name === 'PORT')
        expect(Number.isInteger(Number(value)) && Number(value) > 0 && Number(value) < 65536).toBe(true);
      if (name.endsWith('SECRET')) expect(set && value.length < 32, `${name} set to a short value`).toBe(false);
    }
  });
});
