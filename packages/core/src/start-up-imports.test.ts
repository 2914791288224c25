import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadedModules } from '../../../scripts/loaded-modules.js';

// What `import '@verikit/core'` loads before anything is called (decision 1220): libphonenumber-js only once a
// number is read, and rate-limiter-flexible's memory limiter (that module alone) only once the send guard counts a
// send (decision 1361). bench/cold-import.bench.ts times it.
const packageRoot = fileURLToPath(new URL('..', import.meta.url));

/** In a fresh node: imports @verikit/core, marks `imported`, reads a number, marks `read`, starts a flow (the send
 * guard counts its send), marks `sent`. */
function modulesLoaded(): Promise<string[]> {
  return loadedModules(
    packageRoot,
    `const { createVerikit } = await import('@verikit/core');
    mark('imported');
    const { readPhoneNumber } = await import('@verikit/provider');
    if (!readPhoneNumber('+2348031234567').ok) throw new Error('the number was refused');
    mark('read');
    const { createTestProviderV1, freshPhoneNumber } = await import('@verikit/testing');
    const verikit = createVerikit({ provider: createTestProviderV1(), secret: 'a-secret-of-32-characters-or-more!' });
    const flow = await verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() });
    if (flow.status !== 'awaiting-code') throw new Error('the flow did not send: ' + flow.status);
    mark('sent');`,
  );
}

describe('importing @verikit/core', () => {
  let lines: string[];
  let atImport: string[];

  beforeAll(async () => {
    lines = await modulesLoaded();
    atImport = lines.slice(0, lines.indexOf('imported'));
  });

  it('loads the engine and its dependencies (the recording works)', () => {
    expect(atImport.some((line) => line.endsWith('/packages/core/src/index.ts'))).toBe(true);
    expect(atImport.some((line) => line.includes('/node_modules/xstate/'))).toBe(true);
    expect(atImport.some((line) => line.includes('/node_modules/zod/'))).toBe(true);
  });

  it('loads libphonenumber-js only when a number is read', () => {
    expect(atImport.filter((line) => line.includes('/node_modules/libphonenumber-js/'))).toEqual([]);
    const afterRead = lines.slice(lines.indexOf('imported'), lines.indexOf('read'));
    expect(afterRead.some((line) => line.includes('/node_modules/libphonenumber-js/metadata.max.json'))).toBe(true);
  });

  it('loads rate-limiter-flexible’s memory limiter only when the guard counts, and none of its other backends', () => {
    expect(atImport.filter((line) => line.includes('/node_modules/rate-limiter-flexible/'))).toEqual([]);
    const limiterFiles = lines
      .slice(0, lines.indexOf('sent'))
      .filter((line) => line.includes('/node_modules/rate-limiter-flexible/'))
      .map((line) => line.slice(line.lastIndexOf('/rate-limiter-flexible/') + '/rate-limiter-flexible/'.length));
    expect(limiterFiles).toContain('lib/RateLimiterMemory.js');
    expect(limiterFiles.filter((path) => /Redis|Mongo|Cluster|Postgres|MySQL|Dynamo|Prisma/.test(path))).toEqual([]);
    expect(limiterFiles).not.toContain('index.js');
  });
});
