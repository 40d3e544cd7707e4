// Every type the service has, from the emulator's `every_type` table (its edge values: docs/api-facts.md §16),
// exported over REST (the digits the service's JSON writer prints: Java's floats, `restFloats`) and over Flight in
// the service's vectors and in the other Arrow encodings servers send (`flightEncoding`): CSV, NDJSON and JSON byte
// for byte the same whichever transport and encoding; Parquet from each read back by pyarrow and DuckDB, value for
// value the NDJSON export (docs/cli-contract.md "Every type an export writes").
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fixture, useFixture } from '../helpers/fixture.js';
import { ndjsonValues, readParquet, recordsOf } from '../helpers/real-readers.js';

const QUERY = 'SELECT * FROM every_type ORDER BY id';
const ENCODINGS = {
  service: { nested: 'arrow', intervals: 'arrow' },
  other: {
    date: 'day',
    time: 'ns',
    timestamp: 'us',
    zone: 'UTC',
    strings: 'dictionary',
    binary: 'large',
    lists: 'large',
    decimal: 256,
    nested: 'arrow',
    intervals: 'arrow',
  },
  views: { time: 'us', strings: 'view', binary: 'view', nested: 'arrow', intervals: 'arrow' },
} as const;
type Encoding = keyof typeof ENCODINGS;
const NAMES = Object.keys(ENCODINGS) as Encoding[];

let dir: string;
/** An emulator for each encoding, logged in with its Flight endpoint. */
const fixtures = Object.fromEntries(
  NAMES.map((name) => [
    name,
    useFixture(
      { flightPort: 0, jobStepMs: 1, restFloats: 'java', flightEncoding: ENCODINGS[name] as never },
      { login: false },
    ),
  ]),
) as Record<Encoding, Fixture>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dlake-every-type-'));
  for (const fx of Object.values(fixtures)) {
    const login = await fx.run(
      ['--flight-url', fx.emu.flight!.url, 'login', '-u', 'admin', '--password-stdin'],
      {
        input: 'admin-pass-1\n',
      },
    );
    expect(login.code, login.stderr).toBe(0);
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function exported(encoding: Encoding, transport: 'rest' | 'flight', format: string): Promise<string> {
  const file = join(dir, `${encoding}-${transport}.${format}`);
  const r = await fixtures[encoding].run(['sql', QUERY, '--out', file, '--transport', transport]);
  expect(r.code, r.stderr).toBe(0);
  return file;
}

describe('every type over REST and Flight', () => {
  for (const format of ['csv', 'ndjson', 'json'] as const)
    it(`${format}: the Flight export of every encoding is the REST export, byte for byte`, async () => {
      const rest = readFileSync(await exported('service', 'rest', format), 'utf8');
      expect(rest).toContain('0.000000000000000000');
      expect(rest).toContain('-0.000000000000000001');
      for (const encoding of NAMES)
        expect(readFileSync(await exported(encoding, 'flight', format), 'utf8'), encoding).toBe(rest);
    });

  it('parquet: pyarrow and DuckDB read the REST export and every Flight encoding, value for value the NDJSON', {
    timeout: 300_000,
  }, async () => {
    const expected = ndjsonValues(readFileSync(await exported('service', 'rest', 'ndjson'), 'utf8'));
    const files = [await exported('service', 'rest', 'parquet')];
    for (const encoding of NAMES) files.push(await exported(encoding, 'flight', 'parquet'));
    const read = await readParquet(files);
    for (const file of files)
      for (const reader of ['pyarrow', 'duckdb'] as const)
        expect(recordsOf(read[file]![reader]), `${file} ${reader}`).toEqual(expected);
  });
});
