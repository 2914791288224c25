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
  const child = spawn(
    process.execPath,
    ['--import', tsx, '--conditions=@verikit/source', source, ...process.argv.slice(2)],
    { stdio: 'inherit' },
  );
  // SIGINT/SIGTERM are passed on, and the child's exit is ours. A child that ends by the signal we passed
  // on (it had not set its handlers yet) was stopped as asked: exit 0, as the child itself does once its
  // handlers are set. Any other end by a signal is a failure.
  const forwarded = new Set();
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      forwarded.add(signal);
      child.kill(signal);
    });
  }
  child.on('exit', (code, signal) => process.exit(code ?? (forwarded.has(signal) ? 0 : 1)));
}
