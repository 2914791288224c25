/**
 * `pnpm bench browser-bundle`: what verikit adds to a web page, in gzip bytes. An app's entry is bundled with esbuild
 * for the browser (minified, ES modules, `react` and `react-dom` left out as the app has them anyway) from the
 * packages' sources, then gzipped at level 9. Byte counts, not times: the same on every machine, so the short mode
 * measures the same thing.
 *
 * The arms:
 * - `client`: `createFlowClient` and what it reads (`@verikit/client` alone);
 * - `app, one locale`: the client, `FlowClientProvider`, `useFlow` and `OtpInput` (issue 38's row), the labels in
 *   English only, as a page that shows one language ships;
 * - `app, every shipped locale`: the same with the catalogues of every shipped language given to the provider.
 *
 * Below the arms, the biggest inputs of the one-locale app: each source file's minified bytes in the bundle, from
 * esbuild's metafile (gzip compresses the whole, so a file's share of the gzip is not printed: it is not separable).
 */
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { SummaryRow } from './summary.js';

const root = fileURLToPath(new URL('..', import.meta.url));
/** Issue 38's goal for an app's client + provider + `useFlow` + `OtpInput` with one locale. */
const goalKiB = 9;

interface Arm {
  readonly name: string;
  /** The app's entry: what it imports and uses. */
  readonly entry: string;
}

const app = (messages: string) => `
  import { createFlowClient, englishMessages, messages } from '@verikit/client';
  import { FlowClientProvider, OtpInput, useFlow } from '@verikit/react';
  import { createElement } from 'react';
  function Screen({ flowId }) {
    const { view } = useFlow(flowId);
    return createElement(OtpInput, { length: view?.codeLength ?? 6, onComplete: () => {} });
  }
  export function App({ flowId }) {
    const client = createFlowClient({ baseUrl: '/api/verify' });
    return createElement(FlowClientProvider, { client, messages: ${messages} }, createElement(Screen, { flowId }));
  }`;

const arms: readonly Arm[] = [
  {
    name: 'client',
    entry: `import { createFlowClient } from '@verikit/client'; export const client = createFlowClient({ baseUrl: '/api/verify' });`,
  },
  { name: 'app, one locale', entry: app('{ en: englishMessages }') },
  { name: 'app, every shipped locale', entry: app('messages') },
];

interface Size {
  readonly minified: number;
  readonly gzipped: number;
  /** Minified bytes in the bundle by source file (relative to the repository), biggest first. */
  readonly inputs: ReadonlyArray<readonly [string, number]>;
}

/** The arm's bundle: its minified bytes and their gzip. */
async function bundle(arm: Arm): Promise<Size> {
  const result = await build({
    // Resolved from @verikit/react, which depends on @verikit/client and react as an app would.
    stdin: { contents: arm.entry, resolveDir: join(root, 'packages', 'react'), loader: 'js' },
    bundle: true,
    write: false,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    conditions: ['@verikit/source'],
    external: ['react', 'react-dom', 'react/jsx-runtime'],
    jsx: 'automatic',
    logLevel: 'silent',
    metafile: true,
  });
  const code = result.outputFiles[0]!.contents;
  const output = Object.values(result.metafile.outputs)[0]!;
  const inputs = Object.entries(output.inputs)
    .map(([path, { bytesInOutput }]) => [path.replace(/^(\.\.\/)+/, ''), bytesInOutput] as const)
    .sort((a, b) => b[1] - a[1]);
  return { minified: code.byteLength, gzipped: gzipSync(code, { level: 9 }).byteLength, inputs };
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(2)} KiB`;

export async function run(): Promise<SummaryRow[]> {
  const sizes = new Map<string, Size>();
  for (const arm of arms) {
    const size = await bundle(arm);
    sizes.set(arm.name, size);
    console.log(`${arm.name.padEnd(26)} ${kib(size.minified).padStart(10)} minified, ${kib(size.gzipped)} gzip`);
  }
  console.log('\nbiggest inputs of "app, one locale" (minified bytes in the bundle):');
  for (const [path, bytes] of sizes.get('app, one locale')!.inputs.slice(0, 8))
    console.log(`${String(bytes).padStart(8)}  ${path}`);
  const oneLocale = sizes.get('app, one locale')!.gzipped / 1024;
  return [
    {
      measure: 'browser: client + provider + useFlow + OtpInput, one locale (gzip)',
      value: kib(sizes.get('app, one locale')!.gzipped),
      baseline: '—',
      ratio: oneLocale,
      goal: `≤ ${goalKiB} KiB`,
      met: oneLocale <= goalKiB,
    },
  ];
}
