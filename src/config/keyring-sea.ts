// The credential store's binding in the single executable (scripts/build-sea.mjs): the executable carries
// @napi-rs/keyring's prebuilt binary for linux-x64 as an asset, and its helper process (src/sea.ts) unpacks it
// once into the config folder's `native/` (mode 0700, owned by the user and no one else may write to it: it is
// code that will run), from where its worker thread loads it, as the npm package's loads it from node_modules.
import { createHash } from 'node:crypto';
import { closeSync, constants, lstatSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { configDir } from './dir.js';

/** The unpacked binding's path. */
export function unpackSeaBinding(env: NodeJS.ProcessEnv): string {
  const sea = require('node:sea') as { getRawAsset(key: string): ArrayBuffer };
  const bytes = Buffer.from(sea.getRawAsset('keyring.node'));
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  const dir = join(configDir(env), 'native');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory() || (process.getuid && st.uid !== process.getuid()) || (st.mode & 0o022) !== 0)
    throw new Error(`${dir} is not a private folder of this user: not loading code from it`);
  const file = join(dir, `keyring-${process.platform}-${process.arch}-${hash}.node`);
  if (!isFileOfSize(file, bytes.length)) {
    const temp = `${file}.${process.pid}.tmp`;
    rmSync(temp, { force: true });
    const fd = openSync(
      temp,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    try {
      for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
  }
  return file;
}

function isFileOfSize(file: string, size: number): boolean {
  try {
    // lstat: a link in its place is not the file dlake unpacked; it is replaced, never followed.
    const st = lstatSync(file);
    return st.isFile() && st.size === size;
  } catch {
    return false;
  }
}
