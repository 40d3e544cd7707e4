// The export's file writer: text and bytes land in order and whole, whatever their size against its buffers;
// what it counts as written is on disk; a failing disk is reported on the next call.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileWriter } from '../../src/export/file-writer.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dlake-file-writer-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('FileWriter', () => {
  it('writes any mix of strings and bytes, small or larger than its buffers, exactly and in order', async () => {
    const chunk = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 120 }),
      fc.uint8Array({ maxLength: 200 }),
      fc.constantFrom('é', '東京', '🚀'.repeat(40)),
    );
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(chunk, { maxLength: 60 }),
        fc.integer({ min: 16, max: 256 }),
        async (chunks, size) => {
          const file = join(dir, `f${n++}`);
          const fh = await open(file, 'w');
          const w = new FileWriter(fh, { size });
          for (const c of chunks) {
            w.append(c);
            await w.ready();
          }
          await w.flush();
          await fh.close();
          const expected = Buffer.concat(
            chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : Buffer.from(c))),
          );
          expect(w.bytes).toBe(expected.length);
          expect(w.written).toBe(expected.length);
          expect(readFileSync(file).equals(expected)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('continues after the kept bytes of a file, and counts from the file start', async () => {
    const file = join(dir, 'kept');
    const fh = await open(file, 'w+');
    await fh.write('kept|cut off');
    const w = new FileWriter(fh, { start: 5 });
    w.append('new');
    expect(w.bytes).toBe(8);
    expect(w.written).toBe(5);
    await w.flush();
    expect(w.written).toBe(8);
    await fh.truncate(8);
    await fh.close();
    expect(readFileSync(file, 'utf8')).toBe('kept|new');
  });

  it('a write that fails (a full disk) is thrown by the next call, and nothing after it is written', async () => {
    const writes: number[] = [];
    const full = {
      write: async (_b: Uint8Array, _o: number, length: number) => {
        writes.push(length);
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      },
    } as unknown as FileHandle;
    const w = new FileWriter(full, { size: 8 });
    w.append('0123456789');
    await expect(w.flush()).rejects.toThrow(/ENOSPC/);
    expect(() => w.append('more')).toThrow(/ENOSPC/);
    await expect(w.ready()).rejects.toThrow(/ENOSPC/);
    // The 10 bytes go a buffer (8) at a time: the first write fails, and the 2 bytes after it are not written.
    expect(writes).toEqual([8]);
  });
});

describe('FileWriter with a caller that reuses its buffer', () => {
  // The Flight batch formatter once did this: it filled one buffer, handed it over, and overwrote it for the
  // next batch while a chunk larger than the writer's buffer was still waiting to be written by reference.
  it('writes each chunk as it was when handed over, whatever its size against the buffer', async () => {
    const size = 1024;
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: size * 3 }), { minLength: 1, maxLength: 40 }),
        fc.boolean(),
        async (lengths, waitEach) => {
          const file = join(dir, `reuse${n++}`);
          const fh = await open(file, 'w');
          const w = new FileWriter(fh, { size });
          const scratch = Buffer.alloc(size * 3);
          const expected: Buffer[] = [];
          for (const [k, len] of lengths.entries()) {
            scratch.fill(65 + (k % 26), 0, len);
            const chunk = scratch.subarray(0, len);
            expected.push(Buffer.from(chunk));
            w.append(chunk);
            // Overwritten at once, as a producer filling its buffer for the next chunk would.
            scratch.fill(0x3f);
            if (waitEach) await w.ready();
          }
          await w.flush();
          await fh.close();
          expect(readFileSync(file).equals(Buffer.concat(expected))).toBe(true);
        },
      ),
      { numRuns: 100 },
    );
  });
});
