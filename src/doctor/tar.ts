// A POSIX ustar archive of a few files held in memory (the support bundle of `dlake doctor --bundle`). Regular
// files with short names are all it holds, so it is the 512-byte header of the format and the data padded to
// 512 bytes, nothing of tar's links, long names or extended headers: a few lines, where a tar library would
// add several packages to the bundle. Read back by the system's `tar` in the tests.

const BLOCK = 512;

interface TarEntry {
  /** A relative path of at most 100 bytes, `/`-separated. */
  path: string;
  data: Buffer;
}

/** The archive of `entries`, in order, each file mode 0644 and dated `mtime`. */
export function tarArchive(entries: readonly TarEntry[], mtime: Date): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    parts.push(header(e.path, e.data.length, mtime), e.data);
    const pad = (BLOCK - (e.data.length % BLOCK)) % BLOCK;
    if (pad) parts.push(Buffer.alloc(pad));
  }
  // The end of the archive: two zero blocks.
  parts.push(Buffer.alloc(2 * BLOCK));
  return Buffer.concat(parts);
}

function header(path: string, size: number, mtime: Date): Buffer {
  const name = Buffer.from(path, 'utf8');
  if (name.length > 100 || path.startsWith('/') || path.split('/').includes('..'))
    throw new Error(`not a name a bundle holds: ${path}`);
  const h = Buffer.alloc(BLOCK);
  name.copy(h, 0);
  const octal = (value: number, offset: number, width: number) =>
    h.write(`${value.toString(8).padStart(width - 1, '0')}\0`, offset, 'ascii');
  octal(0o644, 100, 8); // mode
  octal(0, 108, 8); // uid
  octal(0, 116, 8); // gid
  octal(size, 124, 12);
  octal(Math.floor(mtime.getTime() / 1000), 136, 12);
  h.write('        ', 148, 'ascii'); // the checksum counts its own field as spaces
  h.write('0', 156, 'ascii'); // a regular file
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return h;
}
