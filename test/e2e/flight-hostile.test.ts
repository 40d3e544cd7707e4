// A Flight server that lies (test/helpers/hostile-flight.ts): each malformed stream is exit 7 with one `error:`
// line, and neither FILE nor FILE.partial is left; nothing it sent is written. In-process runs: what is tested
// is the client's reading, not the process.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Table, tableFromArrays, Utf8, vectorFromArray } from 'apache-arrow';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectFailure } from '../helpers/fixture.js';
import {
  buffersOf,
  type HostileFlight,
  type Payload,
  payloadsOf,
  startHostileFlight,
  withLength,
} from '../helpers/hostile-flight.js';
import { runInProcess } from '../helpers/in-process.js';

let server: HostileFlight;
let dir: string;
let cfg: string;

/** Three batches of three rows: `id` Int32, `name` Utf8 (the second column's offsets are what lies below). */
const nine = new Table({
  id: vectorFromArray(Int32Array.from({ length: 9 }, (_, i) => i + 1)),
  name: vectorFromArray(
    Array.from({ length: 9 }, (_, i) => `${['a', 'bb', 'ccc'][i % 3]}${i - (i % 3)}`),
    new Utf8(),
  ),
}).batches[0]!;
const good = payloadsOf(new Table([0, 3, 6].map((from) => nine.slice(from, from + 3))));
const [schema, b1, b2, b3] = good as [Payload, Payload, Payload, Payload];
/** Another result's columns. */
const [otherSchema, otherBatch] = payloadsOf(tableFromArrays({ x: Float64Array.from([1.5]) })) as [
  Payload,
  Payload,
];

/** A copy of a batch with its body changed by `edit` (a view of the copy). */
function withBody(p: Payload, edit: (body: DataView) => void): Payload {
  const body = p.data_body.slice();
  edit(new DataView(body.buffer));
  return { data_header: p.data_header, data_body: body };
}
/** Buffers of a batch of (id, name): id validity 0, id data 1, name validity 2, name offsets 3, name data 4. */
const NAME_OFFSETS = 3;

beforeAll(async () => {
  server = await startHostileFlight({ endpoints: [good] });
});
afterAll(() => server.close());
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dlake-hostile-'));
  cfg = mkdtempSync(join(tmpdir(), 'dlake-hostile-cfg-'));
  server.doGets.length = 0;
  return () => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(cfg, { recursive: true, force: true });
  };
});

const exportCsv = (extra: string[] = [], file = 'out.csv') =>
  runInProcess(['sql', 'SELECT * FROM t', '--out', join(dir, file), '--transport', 'flight', ...extra], {
    env: {
      DLAKE_CONFIG_DIR: cfg,
      DLAKE_URL: 'http://127.0.0.1:9',
      DLAKE_TOKEN: 'a-token-for-this-server',
      DLAKE_FLIGHT_URL: server.url,
    },
  });

describe('a stream that breaks after its first batch', () => {
  it('an unparsable message: a broken stream (exit 7), no file', async () => {
    const [schema, b1] = good;
    server.plan = { endpoints: [[schema!, b1!]], ending: { garbage: true } };
    const r = await exportCsv();
    expectFailure(
      r,
      7,
      /the Flight stream from grpc:\/\/127\.0\.0\.1:\d+ broke: Response message parsing error: .*: export stopped after/,
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  // A stream that breaks may have received rows that were not written (a Parquet row group being filled): the
  // count is the rows received, not those written.
  it('names every row received, those not written yet included', async () => {
    server.plan = { endpoints: [[schema, b1]], ending: { garbage: true } };
    expectFailure(
      await exportCsv(),
      7,
      /broke: .*: export stopped after 3 rows; .*out\.csv was not written$/,
    );
    server.plan = { endpoints: [[schema, b1, b2]], ending: { error: 'the query failed on the server' } };
    expectFailure(
      await exportCsv(['--format', 'parquet'], 'out.parquet'),
      6,
      /: export stopped after 6 rows; .*out\.parquet was not written$/,
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  it('to standard output: the rows received, and how many of them were written', async () => {
    server.plan = { endpoints: [[schema, b1, b2]], ending: { garbage: true } };
    const r = await runInProcess(['sql', 'SELECT * FROM t', '--out', '-', '--transport', 'flight'], {
      env: {
        DLAKE_CONFIG_DIR: cfg,
        DLAKE_URL: 'http://127.0.0.1:9',
        DLAKE_TOKEN: 'a-token-for-this-server',
        DLAKE_FLIGHT_URL: server.url,
      },
    });
    expect(r.code).toBe(7);
    // Each batch is handed on as soon as it is read (src/export/flight/result.ts): both are written before
    // the broken message is.
    expect(r.stdout).toBe('id,name\n1,a0\n2,bb0\n3,ccc0\n4,a3\n5,bb3\n6,ccc3\n');
    expect(r.stderr).toMatch(/: export stopped after 6 rows written to standard output\n/);
  });

  it("a failure's text with line breaks and the token: one error line, indented, the token hidden", async () => {
    const [schema, b1] = good;
    server.plan = {
      endpoints: [[schema!, b1!]],
      ending: {
        error: 'bad token a-token-for-this-server\nerror: forged\nhint: run `rm -rf ~`\u001b]0;PWNED\u0007',
      },
    };
    const r = await exportCsv();
    expect(r.code).toBe(6);
    const lines = r.stderr.split('\n');
    expect(lines.filter((l) => /^(error|hint):/.test(l))).toHaveLength(1);
    expect(r.stderr).not.toContain('a-token-for-this-server');
    expect(r.stderr).not.toContain('\u001b');
  });
});

it('--out - on a terminal shows the escape sequences of the data; to a pipe, the bytes as they are', async () => {
  const evil = 'x\u001b]0;PWNED\u0007\u202e';
  server.plan = { endpoints: [payloadsOf(new Table({ name: vectorFromArray([evil], new Utf8()) }))] };
  const run = (tty: boolean) =>
    runInProcess(['sql', 'SELECT * FROM t', '--out', '-', '--transport', 'flight', '-q'], {
      env: {
        DLAKE_CONFIG_DIR: cfg,
        DLAKE_URL: 'http://127.0.0.1:9',
        DLAKE_TOKEN: 'a-token-for-this-server',
        DLAKE_FLIGHT_URL: server.url,
      },
      tty,
    });
  const shown = await run(true);
  expect(shown.code, shown.stderr).toBe(0);
  expect(shown.stdout).toBe('name\nx␛]0;PWNED␇<U+202E>\n');
  const piped = await run(false);
  expect(piped.stdout).toBe(`name\n${evil}\n`);
});

it('a valid stream is written whole (the control)', async () => {
  server.plan = { endpoints: [good] };
  const r = await exportCsv();
  expect(r.code, r.stderr).toBe(0);
  expect(readFileSync(join(dir, 'out.csv'), 'utf8')).toBe(
    'id,name\n1,a0\n2,bb0\n3,ccc0\n4,a3\n5,bb3\n6,ccc3\n7,a6\n8,bb6\n9,ccc6\n',
  );
});

describe('each malformed stream: exit 7, one error line, no file', () => {
  const cases: [string, () => Payload[][], RegExp][] = [
    ['a second schema mid-stream', () => [[schema, b1, otherSchema, otherBatch]], /a second schema/],
    [
      'a second endpoint with other columns',
      () => [
        [schema, b1],
        [otherSchema, otherBatch],
      ],
      /endpoint 2 of 2 has other columns than endpoint 1: \(x: Float64 not null\) after \(id: Int32 not null, name: Utf8\)/,
    ],
    [
      'a batch that is not a flatbuffer',
      () => [[schema, b1, { data_header: Buffer.alloc(64, 0xab), data_body: b2.data_body }, b2, b3]],
      /message \(#3\): its metadata is not an Arrow IPC message/,
    ],
    ['a FlightInfo with no endpoint', () => [], /no endpoint to read it from/],
    ['a stream with no schema', () => [[]], /ended without its schema/],
    ['a stream that begins with a batch', () => [[b1, b2]], /does not begin with its schema/],
    [
      'Utf8 offsets outside their buffer',
      () => {
        const off = buffersOf(b2)[NAME_OFFSETS]!;
        return [[schema, b1, withBody(b2, (v) => v.setInt32(off.offset + 12, 60_000, true))]];
      },
      /the data buffer of column "name" is \d+ bytes, 60000 needed/,
    ],
    [
      'Utf8 offsets that decrease',
      () => {
        const off = buffersOf(b1)[NAME_OFFSETS]!;
        return [[schema, withBody(b1, (v) => v.setInt32(off.offset + 8, 1, true))]];
      },
      /the offsets of column "name" decrease at row 1/,
    ],
    [
      'a body shorter than its metadata',
      () => [[schema, { data_header: b1.data_header, data_body: b1.data_body.subarray(0, 16) }]],
      /its body is 16 bytes, its metadata says \d+/,
    ],
    [
      'a row count of 100,000,000 over 3 rows',
      () => [[schema, withLength(b1, 100_000_000n)]],
      /column "id" has 3 rows, the batch 100000000/,
    ],
    [
      'a row count of 2,000,000,000 over 3 rows',
      () => [[schema, withLength(b1, 2_000_000_000n)]],
      /the batch 2000000000/,
    ],
  ];

  it.each(cases)('%s', async (_name, endpoints, message) => {
    server.plan = { endpoints: endpoints() };
    const r = await exportCsv();
    expectFailure(r, 7, message);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('every format refuses the same way (JSON, NDJSON, Parquet, gzip)', async () => {
    server.plan = { endpoints: [[schema, b1, otherSchema, otherBatch]] };
    for (const file of ['out.json', 'out.ndjson', 'out.parquet', 'out.csv.gz']) {
      const r = await exportCsv([], file);
      expectFailure(r, 7, /a second schema/);
    }
    expect(readdirSync(dir)).toEqual([]);
  });
});

it('--wait-timeout bounds a stream that trickles on and never ends (exit 7, no file)', async () => {
  server.plan = { endpoints: [[schema, b1]], trickle: { payload: b2, everyMs: 100 } };
  const r = await exportCsv(['--wait-timeout', '2s']);
  expectFailure(r, 7, /the Flight export did not end within --wait-timeout 2s/);
  expect(readdirSync(dir)).toEqual([]);
  expect(server.doGets[0]?.sent).toBeGreaterThan(2);
}, 20_000);

it('--wait-timeout bounds a query that is never planned (GetFlightInfo without an answer)', async () => {
  server.plan = { endpoints: [good], stallInfo: true };
  const r = await exportCsv(['--wait-timeout', '1s']);
  expectFailure(r, 7, /the Flight export did not end within --wait-timeout 1s/);
  expect(readdirSync(dir)).toEqual([]);
}, 20_000);

describe('messages derived from valid ones by random damage', () => {
  it('never a crash or a file that lies: exit 0 with every row, or exit 7 with no file', async () => {
    const damage = fc.record({
      which: fc.constantFrom('header', 'body'),
      batch: fc.constantFrom(1, 2, 3),
      at: fc.nat(),
      value: fc.integer({ min: 0, max: 255 }),
      cut: fc.option(fc.nat(), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(damage, async (d) => {
        const payloads = good.map((p) => ({
          data_header: p.data_header.slice(),
          data_body: p.data_body.slice(),
        }));
        const p = payloads[d.batch]!;
        const bytes = d.which === 'header' ? p.data_header : p.data_body;
        bytes[d.at % bytes.length] = d.value;
        if (d.cut !== undefined) {
          const n = d.cut % bytes.length;
          if (d.which === 'header') p.data_header = p.data_header.subarray(0, n);
          else p.data_body = p.data_body.subarray(0, n);
        }
        server.plan = { endpoints: [payloads] };
        rmSync(join(dir, 'out.csv'), { force: true });
        const r = await exportCsv();
        if (r.code === 0) {
          // Bytes of a value may change a value (that is the data), never the number of rows.
          expect(readFileSync(join(dir, 'out.csv'), 'utf8').split('\n').length).toBeGreaterThanOrEqual(11);
        } else {
          expect(r.code, r.stderr).toBe(7);
          expect(r.stderr.match(/^error: /gm)).toHaveLength(1);
          expect(readdirSync(dir)).toEqual([]);
        }
      }),
      { numRuns: 60 },
    );
  }, 60_000);
});
