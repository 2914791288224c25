import { crc32 } from 'node:zlib';

/**
 * A zip archive of `files`, stored (not compressed): what Smile ID's upload takes (`info.json` and the images). A
 * selfie is already compressed, and the archive lives only for the one upload. Names are ASCII.
 */
export function storedZip(files: ReadonlyArray<{ readonly name: string; readonly data: Uint8Array }>): Uint8Array {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const file of files) {
    const name = Buffer.from(file.name, 'ascii');
    const data = Buffer.from(file.data.buffer, file.data.byteOffset, file.data.byteLength);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0, 6); // flags
    local.writeUInt16LE(0, 8); // stored
    local.writeUInt32LE(0, 10); // time and date: 1980-01-01
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0, 8);
    central.writeUInt16LE(0, 10);
    central.writeUInt32LE(0, 12);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...locals, directory, end]));
}

/** The files of a zip archive this module (or any writer of stored entries) made; for the fake and tests. */
export function readStoredZip(archive: Uint8Array): Map<string, Uint8Array> {
  const buffer = Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength);
  const files = new Map<string, Uint8Array>();
  let at = 0;
  while (at + 30 <= buffer.length && buffer.readUInt32LE(at) === 0x04034b50) {
    const method = buffer.readUInt16LE(at + 8);
    const size = buffer.readUInt32LE(at + 18);
    const nameLength = buffer.readUInt16LE(at + 26);
    const extraLength = buffer.readUInt16LE(at + 28);
    const name = buffer.subarray(at + 30, at + 30 + nameLength).toString('ascii');
    const start = at + 30 + nameLength + extraLength;
    if (method !== 0)
      throw new Error(`zip entry ${name} is compressed (method ${method}); only stored entries are read`);
    files.set(name, new Uint8Array(buffer.subarray(start, start + size)));
    at = start + size;
  }
  return files;
}
