import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startDojahFake, type DojahFake } from './fake/index.js';

// docs/providers/dojah.md's snippet runs as written, its DOJAH_* variables pointing at the fake.

const root = fileURLToPath(new URL('../../..', import.meta.url));
const code = /<!-- snippet: dojah-ladder -->\n```ts\n([\s\S]*?)```/.exec(
  readFileSync(join(root, 'docs/providers/dojah.md'), 'utf8'),
)?.[1];

describe('docs/providers/dojah.md', () => {
  let fake: DojahFake;
  beforeAll(async () => {
    fake = await startDojahFake();
  });
  afterAll(() => fake.close());

  it('its ladder snippet runs as written: the match passes at Dojah, the flow awaits the selfie', async () => {
    expect(code, 'the page has the dojah-ladder snippet').toBeDefined();
    expect(code).toContain('// awaiting-selfie face');
    // Imported in this process (vitest compiles it) from the repository's root, whose package.json names every
    // package the snippet imports; its environment is the fake's.
    const directory = mkdtempSync(join(root, '.run-dojah-doc-'));
    const printed = vi.spyOn(console, 'log').mockImplementation(() => {});
    for (const [name, value] of Object.entries({
      VERIKIT_SECRET: 'dojah-doc-secret-0123456789abcdefghijklm',
      DOJAH_APP_ID: fake.appId,
      DOJAH_SECRET_KEY: fake.secretKey,
      DOJAH_BASE_URL: fake.baseUrl,
    }))
      vi.stubEnv(name, value);
    try {
      writeFileSync(join(directory, 'snippet.ts'), code!);
      await import(pathToFileURL(join(directory, 'snippet.ts')).href);
      expect(printed.mock.calls).toEqual([['awaiting-selfie', 'face']]);
      expect(fake.requests.map((request) => request.path)).toEqual(['/api/v1/kyc/bvn']);
    } finally {
      printed.mockRestore();
      vi.unstubAllEnvs();
      rmSync(directory, { recursive: true, force: true });
    }
  }, 180_000);
});
