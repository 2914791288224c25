/**
 * What a fresh node loads while it runs a script: for the tests that keep a package's imports small
 * (`provider-imports.test.ts`) and its start-up light (`start-up-imports.test.ts`, decision 1220).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * A resolve hook that appends every URL it resolves to a file. It writes synchronously, so each line is on disk
 * before the import that needed it completes.
 */
const recorderHooks = `
import { appendFileSync } from 'node:fs';
let file;
export function initialize(data) { file = data.file; }
export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  appendFileSync(file, result.url + '\\n');
  return result;
}
`;

/**
 * Runs `script` (an ES module body) in a fresh node from `cwd`, with the source condition and tsx, and returns every
 * line written to the record in order: each URL the ESM loader resolved, and what the script itself wrote with
 * `mark(text)`. CommonJS modules required from CommonJS do not pass the ESM hooks: `mark` first writes those
 * required since the last mark (as file URLs), from the require cache.
 */
export async function loadedModules(cwd: string, script: string): Promise<string[]> {
  const directory = mkdtempSync(join(tmpdir(), 'verikit-loaded-modules-'));
  const file = join(directory, 'record.txt');
  const child = `
    import { register, createRequire } from 'node:module';
    import { appendFileSync } from 'node:fs';
    import { pathToFileURL } from 'node:url';
    register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(recorderHooks)}), {
      data: { file: ${JSON.stringify(file)} },
    });
    const cache = createRequire(import.meta.url).cache;
    const seen = new Set(Object.keys(cache));
    const mark = (text) => {
      const required = Object.keys(cache).filter((path) => !seen.has(path));
      for (const path of required) seen.add(path);
      appendFileSync(${JSON.stringify(file)}, required.map((path) => pathToFileURL(path).href + '\\n').join('') + text + '\\n');
    };
    ${script}
  `;
  try {
    await promisify(execFile)(
      process.execPath,
      ['--conditions=@verikit/source', '--import', 'tsx', '--input-type=module', '--eval', child],
      { cwd },
    );
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line !== '');
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
