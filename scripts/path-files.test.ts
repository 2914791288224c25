import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { errorCode } from '@verikit/core/internal';
import { filesRunBy, isProjectSource, measurePath, ussdWebhookPath } from './path-files.js';

const root = pathToFileURL(`${process.cwd()}/`).href;

describe('path-files', () => {
  it("counts a package's source, never a test, a fixture, a fake, the test double or a dependency", () => {
    expect(isProjectSource(`${root}packages/core/src/engine/commit-loop.ts`)).toBe(true);
    expect(isProjectSource(`${root}packages/core/src/engine/commit-loop.test.ts`)).toBe(false);
    expect(isProjectSource(`${root}packages/core/src/engine/engine.fixtures.ts`)).toBe(false);
    expect(isProjectSource(`${root}packages/twilio/src/fake/twilio-fake.ts`)).toBe(false);
    expect(isProjectSource(`${root}packages/testing/src/test-provider-v1.ts`)).toBe(false);
    expect(isProjectSource(`${root}node_modules/xstate/dist/xstate.js`)).toBe(false);
    expect(isProjectSource('node:internal/url')).toBe(false);
  });

  it('names the files whose functions ran while the work ran, and only those', async () => {
    errorCode(new Error('loaded and run once before counting'));
    const files = await filesRunBy(async () => {
      errorCode(new Error('counted'));
    });
    expect(files).toContain('packages/core/src/logging/error-code.ts');
    // Loaded with @verikit/core/internal, and not run by the work.
    expect(files).not.toContain('packages/core/src/inputs/parse-flow-id.ts');
  });

  it('measures the USSD webhook path: the webhook route, the engine and the store run; the fake does not count', async () => {
    const files = await measurePath(ussdWebhookPath);
    expect(files).toContain('packages/http/src/webhooks/webhook-route.ts');
    expect(files).toContain('packages/core/src/engine/commit-loop.ts');
    expect(files).toContain('packages/gateway/src/webhook-parser.ts');
    expect(files.filter((file) => file.includes('/fake/'))).toEqual([]);
  });
});
