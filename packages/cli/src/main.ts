/**
 * The `verikit` executable's entry: runs the command and, for the sandbox, stays up until SIGINT/SIGTERM.
 *
 * @module
 */
import { processIo } from './cli-io.js';
import { runCli } from './run-cli.js';

const result = await runCli(process.argv.slice(2), processIo);
if (typeof result === 'number') {
  process.exitCode = result;
} else {
  const stop = () => {
    void result.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
