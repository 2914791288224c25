import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Each snippet of the page with the file it says it comes from. */
function snippets(page: string): { file: string; code: string }[] {
  return [...page.matchAll(/<!-- from (\S+) -->\n```ts\n([\s\S]*?)```/g)].map(([, file, code]) => ({
    file: file!,
    code: code!,
  }));
}

// Every snippet of docs/integrations/better-auth.md is a verbatim part of the example's code, which the Chromium test
// (better-auth-browser.test.ts) runs: a snippet that drifts from the code fails here.
describe('docs/integrations/better-auth.md', () => {
  const page = readFileSync(`${root}docs/integrations/better-auth.md`, 'utf8');

  it('shows only code the example runs, word for word', () => {
    const found = snippets(page);
    expect(found.map(({ file }) => file)).toEqual([
      'examples/better-auth/server/auth.ts',
      'examples/better-auth/server/start-server.ts',
      'examples/better-auth/web/main.ts',
      'examples/better-auth/web/main.ts',
      'examples/better-auth/web/main.ts',
      'examples/better-auth/web/main.ts',
    ]);
    for (const { file, code } of found) expect(readFileSync(`${root}${file}`, 'utf8')).toContain(code);
    // No snippet without its source.
    expect(page.match(/```ts/g)).toHaveLength(found.length);
  });
});
