// The real readers themselves (test/helpers/real-readers.ts): pyarrow and DuckDB read a Parquet file of every type
// to the same canonical values, and the file Arrow C++ refuses (a DECIMAL stored as a zero-length byte array) is
// refused by pyarrow even though DuckDB reads it, which is why the export tests read every file with both.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ByteWriter, parquetWrite } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useFixture } from '../helpers/fixture.js';
import { readWithBoth, readWithDuckDB, readWithPyarrow } from '../helpers/real-readers.js';

let dir: string;
/** Its engine writes the file of every type; dlake is not run. */
const fx = useFixture({ bigRows: 1 }, { login: false });
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'dlake-readers-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('pyarrow and DuckDB, reading the same file', () => {
  it('read every type, nested ones and the edge values, to the same canonical values', async () => {
    const file = join(dir, 'every.parquet');
    // The emulator's sample table, written by its DuckDB. Parquet has no interval type the readers agree on (the
    // contract writes intervals as text).
    await fx.emu.runEngineQuery(
      `COPY (SELECT * EXCLUDE (interval_ds, interval_ym) FROM every_type ORDER BY id) TO '${file}' (FORMAT parquet)`,
    );

    const { pyarrow, duckdb } = await readWithBoth(file);
    expect(pyarrow.reader).toMatch(/^pyarrow \d+/);
    expect(pyarrow.rows).toBe(7);
    expect(pyarrow.columns.map((c) => c.name)).toEqual(duckdb.columns.map((c) => c.name));
    for (const [i, column] of pyarrow.columns.entries()) {
      expect(column.values, column.name).toEqual(duckdb.columns[i]!.values);
    }
    const column = (name: string) => pyarrow.columns.find((c) => c.name === name)!.values;
    expect(column('int64')).toEqual([
      '0',
      '-1',
      '9223372036854775807',
      '-9223372036854775808',
      '9007199254740993',
      null,
      '4242424242424242',
    ]);
    expect(column('dec_38_18').slice(0, 2)).toEqual(['0.000000000000000000', '-0.000000000000000001']);
    expect(column('float32').slice(1, 5)).toEqual(['-0', '3.4028235e+38', 'NaN', 'Infinity']);
    expect(column('day')[3]).toBe('-0220-01-01');
    expect(column('ts')[2]).toBe('2300-01-01 12:34:56.789000');
    expect(column('attrs')[1]).toEqual([
      ['a', '-1'],
      ['b', null],
    ]);
    expect(column('orders')[3]).toEqual([
      null,
      { sku: null, qty: null, price: null, tags: null, placed: null },
    ]);
  });

  it('a DECIMAL stored as a zero-length byte array: DuckDB reads it, pyarrow refuses the file', async () => {
    const file = join(dir, 'decimal-zero.parquet');
    const writer = new ByteWriter();
    parquetWrite({
      writer,
      // hyparquet-writer stores a decimal zero as a zero-length byte array.
      columnData: [{ name: 'd', data: [0n, 1n] }],
      schema: [
        { name: 'root', num_children: 1 },
        { name: 'd', type: 'BYTE_ARRAY', converted_type: 'DECIMAL', scale: 2, precision: 38 },
      ],
      statistics: false,
    });
    writeFileSync(file, new Uint8Array(writer.getBuffer()));
    expect((await readWithDuckDB(file)).columns[0]!.values).toEqual(['0.00', '0.01']);
    await expect(readWithPyarrow(file)).rejects.toThrow(/FromBigEndian/);
  });
});
