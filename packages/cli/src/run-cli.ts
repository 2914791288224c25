import type { CliIo } from './cli-io.js';
import type { FakeRun } from './fakes.js';
import { cliVersion } from './cli-version.js';
import { runSandboxCommand } from './sandbox-command.js';
import { runReplayCommand } from './replay-command.js';
import { runSimulateCommand } from './simulate-command.js';

/** The help text of `verikit`. */
export const usage = `Usage: verikit <command> [options]

Commands:
  sandbox    run a provider's fake: the gateway service (default), Termii or Twilio (verikit sandbox --help)
  simulate   run a carrier simulation scenario: verified share, cost, attacker and double sends (verikit simulate --help)
  replay     replay traffic against a guard configuration: attacker sends, people refused, money (verikit replay --help)

Options:
  -v, --version   the version of verikit
  -h, --help      this help`;

/** Runs the command in `args`: a running fake, or an exit code. */
export async function runCli(args: readonly string[], io: CliIo): Promise<FakeRun | number> {
  const [command, ...rest] = args;
  if (command === 'sandbox') return runSandboxCommand(rest, io);
  if (command === 'simulate') return runSimulateCommand(rest, io);
  if (command === 'replay') return runReplayCommand(rest, io);
  if (command === '--version' || command === '-v') {
    io.out(cliVersion());
    return 0;
  }
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    io.out(usage);
    return command === undefined ? 2 : 0;
  }
  io.err(`verikit: unknown command ${JSON.stringify(command.slice(0, 40))}`);
  io.err(usage);
  return 2;
}
