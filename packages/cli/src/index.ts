/**
 * The `verikit` command as a library: run it with your own output, e.g. in tests.
 *
 * @module
 */
export { runCli, usage } from './run-cli.js';
export { runSandboxCommand, sandboxUsage } from './sandbox-command.js';
export type { FakeRun, FakeProvider, FakeFlags } from './fakes.js';
export { processIo, type CliIo } from './cli-io.js';
export { formatEvent } from './format-event.js';
