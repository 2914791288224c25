/**
 * The `verikit` command as a library: run it with your own output, e.g. in tests.
 *
 * @module
 */
/** @public Documented in the README: the command as a library, with the output of one's own, for tests. */
export { runCli } from './run-cli.js';
export type { FakeRun, FakeProvider, FakeFlags } from './fakes.js';
export type { CliIo } from './cli-io.js';
