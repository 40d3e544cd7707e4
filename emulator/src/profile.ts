// The query profile download (docs/api-facts.md §15): `POST /apiv2/support/{jobId}/download`
// answers a zip holding `header.json` and `profile_attempt_0.json`, as a real server's download does. The
// profile is shaped as the service's QueryProfile (a recorded one is test/fixtures/real/dqd-profile.json):
// fragmentProfile → minorFragmentProfile → operatorProfile with operatorType, setupNanos, processNanos,
// waitNanos, peakLocalMemoryAllocated, inputProfile records and metrics, and operatorTypeMetricsMap naming
// each operator type's metrics (SPILL_COUNT among them).
//
// Test hooks in the job's SQL: `/* profile-threads:N */` gives the scan phase N minor fragments (a big
// profile: 60,000 make about 100 MB of JSON); an ORDER BY makes the sort spill twice.
import { crc32, createDeflateRaw } from 'node:zlib';

export interface ProfiledJob {
  id: string;
  sql: string;
  user: string;
  state: string;
  startedAt: number;
  endedAt?: number;
  executionStartedAt: number;
  schedulingStartedAt?: number;
  schedulingEndedAt?: number;
  rows: number;
  /** Datasets the query read, as catalog paths. */
  datasets: string[][];
  /** The reflection chosen to accelerate it, if any. */
  chosen?: { id: string; name: string; type: 'RAW' | 'AGGREGATION' };
}

const THREADS_HINT = /\/\*\s*profile-threads\s*:\s*(\d+)\s*\*\//i;

/** The service's CoreOperatorType numbers of the operators the emulator's profiles hold. */
const OP = { SCREEN: 13, PROJECT: 10, HASH_AGGREGATE: 3, EXTERNAL_SORT: 17, UNORDERED_RECEIVER: 11 } as const;
const SCAN = 21; // PARQUET_ROW_GROUP_SCAN
const SENDER = 0; // SINGLE_SENDER

/** Metric names per operator type, as operatorTypeMetricsMap lists them (index = operator type). */
function metricsDef(): Array<{ metricDef: Array<{ id: number; name: string }> }> {
  const defs: Array<{ metricDef: Array<{ id: number; name: string }> }> = [];
  for (let t = 0; t < 68; t++) defs.push({ metricDef: [] });
  defs[OP.HASH_AGGREGATE] = {
    metricDef: [
      { id: 0, name: 'NUM_BUCKETS' },
      { id: 1, name: 'NUM_ENTRIES' },
      { id: 17, name: 'SPILL_COUNT' },
      { id: 28, name: 'TOTAL_SPILLED_DATA_SIZE' },
    ],
  };
  defs[OP.EXTERNAL_SORT] = {
    metricDef: [
      { id: 0, name: 'SPILL_COUNT' },
      { id: 5, name: 'SPILL_TIME_NANOS' },
      { id: 7, name: 'TOTAL_SPILLED_DATA_SIZE' },
    ],
  };
  defs[SCAN] = { metricDef: [{ id: 0, name: 'NUM_READ_COLUMNS' }] };
  return defs;
}

interface OpSpec {
  id: number;
  type: number;
  processNanos: number;
  records: number;
  peak: number;
  metric?: Array<{ metricId: number; longValue: number }>;
}

const operator = (o: OpSpec) => ({
  inputProfile: [
    { records: o.records, batches: Math.max(1, Math.ceil(o.records / 4095)), size: o.records * 64 },
  ],
  operatorId: o.id,
  operatorType: o.type,
  setupNanos: 250_000 + o.id * 1000,
  processNanos: o.processNanos,
  peakLocalMemoryAllocated: o.peak,
  metric: o.metric ?? [],
  waitNanos: 100_000,
  operatorSubtype: 0,
});

const minor = (id: number, ops: object[], start: number, end: number) => ({
  state: 3,
  minorFragmentId: id,
  operatorProfile: ops,
  startTime: start,
  endTime: end,
  memoryUsed: 0,
  maxMemoryUsed: 18_207_424,
  endpoint: { address: 'emulator', fabricPort: 45678 },
  lastUpdate: end,
  lastProgress: end,
  runDuration: end - start,
  numRuns: 3,
});

/** The profile JSON, in chunks of text (a big one is never one string). */
function* profileChunks(job: ProfiledJob): Generator<string> {
  const start = job.startedAt;
  const end = job.endedAt ?? start + 80;
  const threads = Math.max(1, Number(THREADS_HINT.exec(job.sql)?.[1] ?? 2));
  const sorts = /\border\s+by\b/i.test(job.sql);
  const rows = job.rows;
  const head = {
    id: { part1: 2069418626012072247n.toString(), part2: 7174571401325465344n.toString() },
    start,
    end,
    query: job.sql,
    plan: '00-00    Screen\n00-01      Project\n00-02        HashAgg\n01-00          SingleSender\n01-01            ParquetRowGroupScan\n',
    foreman: { address: 'emulator', userPort: 31010, fabricPort: 45678, dremioVersion: '26.0.0-emulator' },
    state: job.state === 'COMPLETED' ? 2 : job.state === 'FAILED' ? 4 : job.state === 'CANCELED' ? 3 : 1,
    totalFragments: threads + 1,
    finishedFragments: threads + 1,
  };
  // `id` parts are longs in the real file; written as numbers here through the text below.
  let text = JSON.stringify(head);
  text = text.replace(/"part1":"(\d+)","part2":"(\d+)"/, '"part1":$1,"part2":$2');
  yield `${text.slice(0, -1)},"fragmentProfile":[`;
  // Phase 00: the root, where rows come together (a sort here spills when the query orders its rows).
  const rootOps = [
    operator({ id: 0, type: OP.SCREEN, processNanos: 120_000, records: rows, peak: 1_000_000 }),
    operator({ id: 1, type: OP.PROJECT, processNanos: 90_000, records: rows, peak: 1_000_000 }),
    sorts
      ? operator({
          id: 2,
          type: OP.EXTERNAL_SORT,
          processNanos: 19_500_000,
          records: rows,
          peak: 48_000_000,
          metric: [
            { metricId: 0, longValue: 2 },
            { metricId: 7, longValue: 3_145_728 },
          ],
        })
      : operator({
          id: 2,
          type: OP.HASH_AGGREGATE,
          processNanos: 3_240_568,
          records: rows,
          peak: 10_027_008,
          metric: [{ metricId: 17, longValue: 0 }],
        }),
    operator({ id: 3, type: OP.UNORDERED_RECEIVER, processNanos: 40_000, records: rows, peak: 500_000 }),
  ];
  yield JSON.stringify({ majorFragmentId: 0, minorFragmentProfile: [minor(0, rootOps, start + 10, end)] });
  // Phase 01: the scan, spread over `threads` minor fragments.
  yield ',{"majorFragmentId":1,"minorFragmentProfile":[';
  const per = Math.max(1, Math.round(rows / threads));
  for (let t = 0; t < threads; t++) {
    const ops = [
      operator({ id: 0, type: SENDER, processNanos: 60_000 + t, records: per, peak: 400_000 }),
      operator({
        id: 1,
        type: SCAN,
        processNanos: 5_000_000 + ((t * 7919) % 1_000_000),
        records: per,
        peak: 6_000_000 + ((t * 104_729) % 4_000_000),
        metric: [{ metricId: 0, longValue: 5 }],
      }),
    ];
    yield (t ? ',' : '') + JSON.stringify(minor(t, ops, start + 12, end - 5));
  }
  yield ']}]';
  const chosen = job.chosen;
  const tail = {
    user: job.user,
    planningStart: start + 2,
    planningEnd: start + 9,
    planPhases: [
      { phaseName: 'Validation', durationMillis: 3, plan: '' },
      { phaseName: 'Convert To Rel', durationMillis: 2, plan: '' },
      { phaseName: 'Logical Planning', durationMillis: 1, plan: '' },
      { phaseName: 'Physical Planning', durationMillis: 1, plan: '' },
    ],
    accelerationProfile: {
      accelerated: chosen !== undefined,
      numSubstitutions: chosen ? 1 : 0,
      millisTakenGettingMaterializations: 0,
      millisTakenNormalizing: 0,
      millisTakenSubstituting: 0,
      layoutProfiles: chosen
        ? [
            {
              layoutId: chosen.id,
              materializationId: `${chosen.id.slice(0, 8)}-mat`,
              name: chosen.name,
              type: chosen.type === 'RAW' ? 1 : 2,
              numUsed: 1,
              numSubstitutions: 1,
              plan: '',
            },
          ]
        : [],
      accelerationDetails: '',
    },
    datasetProfile: job.datasets.map((p) => ({ datasetPath: p.map((c) => `"${c}"`).join('.'), type: 1 })),
    nodeProfile: [{ endpoint: { address: 'emulator', fabricPort: 45678 }, maxMemoryUsed: 14_209_152 }],
    dremioVersion: '26.0.0-emulator',
    operatorTypeMetricsMap: { metricsDef: metricsDef() },
    resourceSchedulingProfile: {
      queueName: 'Low Cost User Queries',
      queueId: '8b21f1da-1f91-4629-9da7-d867c9c1d3b6',
      ruleContent: 'query_cost() < 30000000',
      ruleName: 'Low Cost User Queries',
      ruleAction: 'PLACE',
      resourceSchedulingStart: job.schedulingStartedAt ?? start + 9,
      resourceSchedulingEnd: job.schedulingEndedAt ?? start + 10,
    },
    stateList: [
      { state: 1, startTime: start },
      { state: 3, startTime: start + 2 },
      { state: 5, startTime: start + 9 },
      { state: 8, startTime: start + 11 },
      { state: 9, startTime: end },
    ],
  };
  yield `,${JSON.stringify(tail).slice(1)}`;
}

/** The download: a zip of `header.json` and `profile_attempt_0.json`, deflated as the server's are. */
export async function profileZip(job: ProfiledJob): Promise<Buffer> {
  const header = JSON.stringify({
    clusterInfo: { version: { version: '26.0.0-emulator' }, edition: 'enterprise' },
    job: {
      state: 3,
      info: { jobId: { id: job.id }, sql: job.sql, user: job.user, startTime: job.startedAt },
    },
  });
  return zip(
    [
      { name: 'header.json', chunks: [header] },
      { name: 'profile_attempt_0.json', chunks: profileChunks(job) },
    ],
    new Date(job.endedAt ?? job.executionStartedAt),
  );
}

interface ZipEntry {
  name: string;
  chunks: Iterable<string>;
}

/** A zip of deflated entries (PKWARE APPNOTE 4.3: local headers, data, central directory, end record). */
async function zip(entries: ZipEntry[], modified: Date): Promise<Buffer> {
  const { time, date } = dosDateTime(modified);
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const { data, crc, size } = await deflate(e.chunks);
    const name = Buffer.from(e.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(date, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE(20, 4);
    dir.writeUInt16LE(20, 6);
    dir.writeUInt16LE(0x0800, 8);
    dir.writeUInt16LE(8, 10);
    dir.writeUInt16LE(time, 12);
    dir.writeUInt16LE(date, 14);
    dir.writeUInt32LE(crc, 16);
    dir.writeUInt32LE(data.length, 20);
    dir.writeUInt32LE(size, 24);
    dir.writeUInt16LE(name.length, 28);
    dir.writeUInt32LE(offset, 42);
    parts.push(local, name, data);
    central.push(dir, name);
    offset += local.length + name.length + data.length;
  }
  const dirSize = central.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dirSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, ...central, end]);
}

/** A zip entry's MS-DOS time and date (UTC, two-second steps, years from 1980): 0 would be 1980-00-00. */
function dosDateTime(d: Date): { time: number; date: number } {
  return {
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | (d.getUTCSeconds() >> 1),
    date: ((Math.max(1980, d.getUTCFullYear()) - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
  };
}

/** Deflates the chunks as they come (a 100 MB profile is never held whole), with their CRC-32 and size. */
async function deflate(chunks: Iterable<string>): Promise<{ data: Buffer; crc: number; size: number }> {
  const out: Buffer[] = [];
  const z = createDeflateRaw({ level: 6 });
  z.on('data', (b: Buffer) => out.push(b));
  const ended = new Promise<void>((resolve, reject) => {
    z.on('end', resolve);
    z.on('error', reject);
  });
  let crc = 0;
  let size = 0;
  // Written a megabyte at a time: a big profile is 135,000 small chunks, and a zlib call for each cost a
  // test seconds.
  let pending: string[] = [];
  let pendingLength = 0;
  const flush = async (): Promise<void> => {
    const b = Buffer.from(pending.join(''), 'utf8');
    pending = [];
    pendingLength = 0;
    crc = crc32(b, crc);
    size += b.length;
    if (!z.write(b)) await new Promise((r) => z.once('drain', r));
  };
  for (const chunk of chunks) {
    pending.push(chunk);
    pendingLength += chunk.length;
    if (pendingLength >= 1 << 20) await flush();
  }
  if (pendingLength) await flush();
  z.end();
  await ended;
  return { data: Buffer.concat(out), crc, size };
}
