import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// docs/http.md, "Selfies need a larger maxBodyBytes": its snippet runs as written (a 2 MiB selfie over the route,
// with the limit it advises), and the same snippet with the default limit is refused, so the advice is needed.

const root = fileURLToPath(new URL('../../..', import.meta.url));
const run = promisify(execFile);
const page = readFileSync(join(root, 'docs/http.md'), 'utf8');
const code = /<!-- snippet: selfie-body -->\n```ts\n([\s\S]*?)```/.exec(page)?.[1];

/** Runs the snippet (as it is, or changed) from inside this package, so that its imports resolve to the workspace. */
async function printed(snippet: string): Promise<string> {
  const directory = mkdtempSync(join(root, 'packages/http/.run-'));
  try {
    const file = join(directory, 'snippet.ts');
    writeFileSync(file, `${snippet}\nprocess.exit(0);\n`);
    const { stdout } = await run(process.execPath, ['--conditions=@verikit/source', '--import', 'tsx', file], {
      cwd: root,
      env: { ...process.env, VERIKIT_SECRET: 'selfie-doc-secret-0123456789abcdefghijk' },
    });
    return stdout.trim();
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

describe('docs/http.md: selfies over the flow routes', () => {
  it('states the body size of the largest selfie as the route sees it', () => {
    const body = JSON.stringify({ type: 'submit-selfie', image: Buffer.alloc(2 * 1024 * 1024).toString('base64') });
    expect(page).toContain(`${body.length.toLocaleString('en')} bytes`);
    expect(body.length).toBeLessThan(3 * 1024 * 1024);
  });

  it('its snippet takes a 2 MiB selfie with maxBodyBytes at 3 MiB, and the default 16 KiB refuses it (413)', async () => {
    expect(code, 'docs/http.md has the selfie-body snippet').toBeDefined();
    expect(code).toContain('// 200 verified');
    const [advised, byDefault] = await Promise.all([
      printed(code!),
      printed(code!.replace(', maxBodyBytes: 3 * 1024 * 1024', '')),
    ]);
    expect(advised).toBe('200 verified');
    expect(byDefault).toMatch(/^413 /);
  }, 180_000);
});
