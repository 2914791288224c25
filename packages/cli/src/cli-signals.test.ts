import { describe, expect, it } from 'vitest';
import { binPath, killGroup, mainPath, spawnCli } from './cli.fixtures.js';

/** True once nothing accepts connections at `url` any more. */
async function refused(url: string): Promise<boolean> {
  return fetch(`${url}/__sandbox/outbox`).then(
    () => false,
    () => true,
  );
}

// A terminal's Ctrl-C signals every process of the foreground group: here the bin and the child it
// runs the source in (which then gets it twice: from the terminal and from the bin). `to: 'group'` does
// the same; `to: 'process'` signals the bin alone, as `kill` does.
const cases = [
  { name: 'node bin/verikit.js, Ctrl-C (SIGINT to the process group)', args: [binPath], signal: 'SIGINT', to: 'group' },
  { name: 'node bin/verikit.js, SIGTERM to the process group', args: [binPath], signal: 'SIGTERM', to: 'group' },
  { name: 'node bin/verikit.js, SIGINT to the bin alone', args: [binPath], signal: 'SIGINT', to: 'process' },
  {
    name: 'src/main.ts through tsx with no bin around it, Ctrl-C',
    args: ['--import', 'tsx', '--conditions=@verikit/source', mainPath],
    signal: 'SIGINT',
    to: 'group',
  },
] as const;

describe('verikit sandbox stops on a signal', () => {
  for (const { name, args, signal, to } of cases) {
    it(`${name}: closes the sandbox and exits 0`, async () => {
      const cli = spawnCli(process.execPath, [...args, 'sandbox', '--port', '0']);
      try {
        const url = await cli.listening;
        expect((await fetch(`${url}/__sandbox/outbox`)).status).toBe(200);
        if (to === 'group') process.kill(-cli.child.pid!, signal);
        else cli.child.kill(signal);
        expect(await cli.ended).toEqual({ code: 0, signal: null });
        expect(await refused(url)).toBe(true);
        expect(cli.output.stderr).toBe('');
      } finally {
        killGroup(cli);
      }
    }, 40_000);
  }
});
