import { InvalidInputError } from '@verikit/provider';

/**
 * The value of `--port`: a whole number from 0 (a free port) to 65535. Checked here rather than left to
 * the sandbox's options, so the message names the flag and says the range.
 */
export function parsePort(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const port = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!(port <= 65_535))
    throw new InvalidInputError([{ field: '--port', message: 'must be a whole number from 0 to 65535' }]);
  return port;
}
