import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { clusterSkipReason, clusterUrls, deleteClusterNamespace } from './redis-cluster.fixtures.js';
import { deleteNamespace, redisSkipReason, redisUrl, uniqueNamespace } from './redis-test-env.fixtures.js';

const skipReason = await clusterSkipReason('docs/scaling.md cluster recipe');
const noRedis = await redisSkipReason('docs/scaling.md circuits recipe');
const root = fileURLToPath(new URL('../../..', import.meta.url));
const run = promisify(execFile);

/** Runs `code` as written, inside the repository so that its imports resolve to the workspace packages. */
async function runRecipe(code: string, env: Record<string, string>): Promise<string[]> {
  const directory = mkdtempSync(join(root, 'packages/redis/.run-'));
  try {
    const file = join(directory, 'recipe.ts');
    writeFileSync(file, code);
    const { stdout } = await run(process.execPath, ['--conditions=@verikit/source', '--import', 'tsx', file], {
      cwd: root,
      timeout: 30_000,
      env: { ...process.env, ...env },
    });
    return stdout.split('\n').filter(Boolean);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** The block after `<!-- marker -->` on a page. */
function block(page: string, marker: string): string {
  const code = new RegExp(`<!-- ${marker} -->\\n\`\`\`ts\\n([\\s\\S]*?)\`\`\``).exec(
    readFileSync(join(root, page), 'utf8'),
  )?.[1];
  expect(code, `${page} has the block ${marker}`).toBeDefined();
  return code!;
}

describe.skipIf(noRedis !== undefined)('failover circuits shared through Redis, as the docs show them', () => {
  it('docs/scaling.md: the two-instance recipe runs as written and prints what the page says', async () => {
    expect(readFileSync(join(root, 'docs/scaling.md'), 'utf8')).toContain('It prints `primary open remote` and `0`.');
    const namespace = uniqueNamespace('circuits-recipe');
    try {
      const printed = await runRecipe(block('docs/scaling.md', 'circuits-recipe'), {
        REDIS_URL: redisUrl,
        VERIKIT_NAMESPACE: namespace,
        VERIKIT_SECRET: 'scaling-doc-secret-0123456789abcdefghij',
      });
      expect(printed).toEqual(['primary open remote', '0']);
    } finally {
      await deleteNamespace(namespace);
    }
  }, 40_000);

  it('docs/providers/README.md: the shared breaker and the circuit events, in an app of one instance', async () => {
    const namespace = uniqueNamespace('circuits-readme');
    const prelude = [
      "import { createVerikit } from '@verikit/core';",
      "import { ProviderUnavailableError } from '@verikit/provider';",
      "import { withFailover } from '@verikit/provider-utils';",
      "import { createRedisCircuits, createRedisStore } from '@verikit/redis';",
      "import { createTestProviderV1 } from '@verikit/testing';",
      'const twilio = createTestProviderV1({ name: "twilio" });',
      'const createTwilioProvider = () => twilio;',
      'const createTermiiProvider = () => createTestProviderV1({ name: "termii" });',
      'const store = createRedisStore({ url: process.env.REDIS_URL, namespace: process.env.VERIKIT_NAMESPACE });',
      'const alert = (text: string) => console.log(text);',
    ].join('\n');
    const configured = block('docs/providers/README.md', 'circuits-shared');
    const listening = block('docs/providers/README.md', 'circuit-events');
    const code = [
      prelude,
      configured,
      'const verikit = createVerikit({ provider, store, secret: process.env.VERIKIT_SECRET!, guard: false });',
      listening,
      'for (let n = 0; n < 5; n += 1) {',
      "  twilio.failNext('phone.send', new ProviderUnavailableError('HTTP 503', { maybeSent: false }));",
      "  await verikit.start({ kind: 'phone', phoneNumber: '+2348031234' + String(n).padStart(3, '0') });",
      '}',
      'await new Promise((resolve) => setTimeout(resolve, 200));',
      'await shared.close();',
      'await store.close();',
    ].join('\n');
    try {
      const printed = await runRecipe(code, {
        REDIS_URL: redisUrl,
        VERIKIT_NAMESPACE: namespace,
        VERIKIT_SECRET: 'scaling-doc-secret-0123456789abcdefghij',
      });
      expect(printed).toEqual(['twilio is out of rotation (local)']);
    } finally {
      await deleteNamespace(namespace);
    }
  }, 40_000);
});

describe.skipIf(skipReason !== undefined)('docs/scaling.md', () => {
  it('its Redis Cluster recipe runs as written on the cluster and prints what the page says', async () => {
    expect(readFileSync(join(root, 'docs/scaling.md'), 'utf8')).toContain(
      'It prints `live checking` and `live verified`.',
    );
    const namespace = uniqueNamespace('recipe');
    try {
      const printed = await runRecipe(block('docs/scaling.md', 'cluster-recipe'), {
        REDIS_CLUSTER_URLS: clusterUrls.join(','),
        VERIKIT_NAMESPACE: namespace,
        VERIKIT_SECRET: 'scaling-doc-secret-0123456789abcdefghij',
      });
      expect(printed).toEqual(['live checking', 'live verified']);
    } finally {
      await deleteClusterNamespace(clusterUrls, namespace);
    }
  }, 40_000);
});
