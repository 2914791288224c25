/**
 * The `verikit` executable's entry: runs the command and, for the sandbox, stays up until SIGINT/SIGTERM,
 * then closes the sandbox and exits 0.
 *
 * The handlers are in place before the sandbox starts and stay in place while it closes: a Ctrl-C in a
 * terminal reaches every process of the group, so this process gets the signal from the terminal and again
 * from `bin/verikit.js` (or pnpm) forwarding it. A second signal must not end the process with the default
 * action (an exit "by signal", which shells and pnpm report as a failure).
 *
 * @module
 */
import { processIo } from './cli-io.js';
import { runCli } from './run-cli.js';

let stopRequested = false;
/** The sandbox or provider fake this process serves until a signal. */
type Running = { close(): Promise<void> };
let running: Running | undefined;

const stop = (sandbox: Running) => {
  void sandbox.close().then(() => process.exit(0));
};
const onSignal = () => {
  if (stopRequested) return;
  stopRequested = true;
  if (running !== undefined) stop(running);
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

const result = await runCli(process.argv.slice(2), processIo);
if (typeof result === 'number') {
  process.exitCode = result;
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
} else {
  running = result;
  if (stopRequested) stop(result);
}
