import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot, runSnippet } from '../doc-snippet.fixtures.js';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('docs/flows.md, "Events to your webhook"', () => {
  it('its recipe runs as written and prints what the page says', async () => {
    const page = readFileSync(join(repositoryRoot, 'docs/flows.md'), 'utf8');
    const recipe = /<!-- event-webhook-recipe -->\n```ts\n([\s\S]*?)```/.exec(page)?.[1];
    expect(recipe, 'docs/flows.md has the event webhook recipe').toBeDefined();
    expect(page).toContain('It prints `flow.started` and `flow.verified`.');
    const printed = await runSnippet(recipe!, {
      PORT: String(await freePort()),
      VERIKIT_SECRET: 'events-doc-secret-0123456789abcdefghijkl',
      VERIKIT_EVENTS_SECRET: `whsec_${Buffer.from('events-doc-webhook-key-0123456789').toString('base64')}`,
    });
    expect(printed.split('\n').filter(Boolean)).toEqual(['flow.started', 'flow.verified']);
  }, 40_000);
});
