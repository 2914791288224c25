import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

describe('README.md', () => {
  it('its example runs as written and prints what its comments say', async () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example, 'README.md has a ts example').toBeDefined();
    // Written inside the repository so that its imports resolve to the workspace packages.
    const directory = mkdtempSync(join(root, 'examples/readme/.run-'));
    try {
      const file = join(directory, 'example.ts');
      writeFileSync(file, example!);
      const { stdout } = await run(process.execPath, ['--conditions=@verikit/source', '--import', 'tsx', file], {
        cwd: root,
        timeout: 30_000,
        env: {
          ...process.env,
          VERIKIT_SECRET: 'readme-example-secret-0123456789abcdef',
          VERIKIT_WEBHOOK_SECRET: 'readme-example-webhook-secret-0123',
        },
      });
      expect(stdout.split('\n').filter(Boolean)).toEqual([
        'awaiting-code 5',
        "checking [ 'cancel' ]",
        'verified []',
        '*******5678',
        '200 verified',
      ]);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }, 40_000);
});
