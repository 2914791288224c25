import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { clusterSkipReason, clusterUrls, deleteClusterNamespace } from './redis-cluster.fixtures.js';
import { uniqueNamespace } from './redis-test-env.fixtures.js';

const skipReason = await clusterSkipReason('docs/scaling.md cluster recipe');
const root = fileURLToPath(new URL('../../..', import.meta.url));
const run = promisify(execFile);

describe.skipIf(skipReason !== undefined)('docs/scaling.md', () => {
  it('its Redis Cluster recipe runs as written on the cluster and prints what the page says', async () => {
    const page = readFileSync(join(root, 'docs/scaling.md'), 'utf8');
    const recipe = /<!-- cluster-recipe -->\n```ts\n([\s\S]*?)```/.exec(page)?.[1];
    expect(recipe, 'docs/scaling.md has the cluster recipe').toBeDefined();
    expect(page).toContain('It prints `live checking` and `live verified`.');
    const namespace = uniqueNamespace('recipe');
    // Written inside the repository so that its imports resolve to the workspace packages.
    const directory = mkdtempSync(join(root, 'packages/redis/.run-'));
    try {
      const file = join(directory, 'recipe.ts');
      writeFileSync(file, recipe!);
      const { stdout } = await run(process.execPath, ['--conditions=@verikit/source', '--import', 'tsx', file], {
        cwd: root,
        timeout: 30_000,
        env: {
          ...process.env,
          REDIS_CLUSTER_URLS: clusterUrls.join(','),
          VERIKIT_NAMESPACE: namespace,
          VERIKIT_SECRET: 'scaling-doc-secret-0123456789abcdefghij',
        },
      });
      expect(stdout.split('\n').filter(Boolean)).toEqual(['live checking', 'live verified']);
    } finally {
      rmSync(directory, { recursive: true, force: true });
      await deleteClusterNamespace(clusterUrls, namespace);
    }
  }, 40_000);
});
