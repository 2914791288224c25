/** Where the CLI writes and what environment it reads: injectable for tests. */
export interface CliIo {
  /** Writes one line of normal output (stdout for the process). */
  readonly out: (line: string) => void;
  /** Writes one line of diagnostics (stderr for the process), so output stays pipeable. */
  readonly err: (line: string) => void;
  /** Where settings such as the webhook secret come from when no flag gives them. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** The process's own stdout, stderr and environment. */
export const processIo: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
};
