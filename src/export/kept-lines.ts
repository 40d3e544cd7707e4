// The rows of a text export kept in FILE.partial, counted as a resumed export checks them (resume.ts): a row a
// line, CSV's line breaks inside quotes excepted, gzip members decompressed. Loaded only by `--resume`.
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { KeptBytes } from './formatter.js';

/** The line ends in the kept bytes; with `quotes`, those outside CSV's double quotes only. */
export async function keptLines({ partial, record }: KeptBytes, quotes: boolean): Promise<number> {
  if (record.bytes === 0) return 0;
  const raw = createReadStream(partial, { start: 0, end: record.bytes - 1 });
  let lines = 0;
  let quoted = false;
  const count = quotes
    ? (chunk: Buffer) => {
        for (let i = 0; i < chunk.length; i++) {
          const b = chunk[i];
          if (b === 0x22) quoted = !quoted;
          else if (b === 0x0a && !quoted) lines++;
        }
      }
    : (chunk: Buffer) => {
        for (let i = chunk.indexOf(0x0a); i >= 0; i = chunk.indexOf(0x0a, i + 1)) lines++;
      };
  const text: Readable = record.gzip ? raw.pipe(createGunzip()) : raw;
  if (record.gzip) raw.on('error', (e) => text.destroy(e));
  for await (const chunk of text) count(chunk as Buffer);
  return lines;
}
