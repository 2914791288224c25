import { createServer, type Server, type Socket } from 'node:net';

/** A `CLUSTER SLOTS` range as a node answers it: first slot, last slot, then the master `[host, port, id]`. */
export type SlotRange = readonly [number, number, readonly [string, number, string]];

function encode(value: unknown): string {
  if (typeof value === 'number') return `:${value}\r\n`;
  if (Array.isArray(value)) return `*${value.length}\r\n${value.map(encode).join('')}`;
  const text = String(value);
  return `$${Buffer.byteLength(text)}\r\n${text}\r\n`;
}

/** Splits complete RESP commands (arrays of bulk strings) off the front of `buffer`; returns them and the rest. */
function commandsIn(buffer: string): { commands: string[][]; rest: string } {
  const commands: string[][] = [];
  let at = 0;
  for (;;) {
    const header = /^\*(\d+)\r\n/.exec(buffer.slice(at));
    if (!header) break;
    let cursor = at + header[0].length;
    const args: string[] = [];
    for (let index = 0; index < Number(header[1]); index += 1) {
      const length = /^\$(\d+)\r\n/.exec(buffer.slice(cursor));
      if (!length || buffer.length < cursor + length[0].length + Number(length[1]) + 2) break;
      cursor += length[0].length;
      args.push(buffer.slice(cursor, cursor + Number(length[1])));
      cursor += Number(length[1]) + 2;
    }
    if (args.length < Number(header[1])) break;
    commands.push(args);
    at = cursor;
  }
  return { commands, rest: buffer.slice(at) };
}

/**
 * A node whose view of the cluster lags behind: it answers `CLUSTER SLOTS` with `slots` (as a node still gossiping
 * an old map would, for instance one naming a master that died) and `+OK` to anything else a client sends on connect.
 * Only what node-redis asks of a seed it refreshes its slot map from.
 */
export async function startLaggingNode(
  slots: readonly SlotRange[],
): Promise<{ readonly port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffer = '';
    socket.on('data', (chunk) => {
      const { commands, rest } = commandsIn(buffer + chunk.toString('utf8'));
      buffer = rest;
      for (const [name, sub] of commands)
        socket.write(name?.toUpperCase() === 'CLUSTER' && sub?.toUpperCase() === 'SLOTS' ? encode(slots) : '+OK\r\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('the lagging node has no port');
  return {
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
