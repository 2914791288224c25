import { readFileSync } from 'node:fs';

/**
 * The version of `@verikit/cli`, read from its package.json when asked. Read at run time rather than
 * copied into the code, so it cannot drift; `../package.json` is the manifest both from `src/` (in the
 * monorepo) and from `dist/` (once built or installed).
 */
export function cliVersion(): string {
  const manifest: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const version =
    typeof manifest === 'object' && manifest !== null && 'version' in manifest ? manifest.version : undefined;
  return typeof version === 'string' ? version : 'unknown';
}
