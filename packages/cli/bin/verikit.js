#!/usr/bin/env node
// The `verikit` command. Runs the built CLI (dist/main.js) when the package is built; in the monorepo,
// without a build, runs the TypeScript source through tsx with the "@verikit/source" condition, so the
// workspace packages are read from source too (docs/sandbox.md, "The CLI").
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const built = new URL('../dist/main.js', import.meta.url);
if (existsSync(built)) {
  await import(built.href);
} else {
  const source = fileURLToPath(new URL('../src/main.ts', import.meta.url));
  const tsx = import.meta.resolve('tsx');
  const child = spawn(process.execPath, ['--import', tsx, '--conditions=@verikit/source', source, ...process.argv.slice(2)], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
