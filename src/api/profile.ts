// The query profile (docs/api-facts.md §15): `POST /apiv2/support/{jobId}/download` answers a
// zip holding `header.json` and `profile_attempt_N.json` (one per attempt). The profile is the service's
// QueryProfile: fragmentProfile (a phase each) → minorFragmentProfile (a thread each) → operatorProfile, with
// times in nanoseconds, input records and peak memory, and operatorTypeMetricsMap naming each operator type's
// metrics (the spill counters among them).
//
// Profiles of large queries are tens of MB of JSON: the summary never parses the file into objects. It walks
// the bytes once, keeping one small record per operator (phase, operator id) and skipping the plans and other
// long texts, so a 100 MB profile is summarised in about the memory of its own bytes.
import { createInflateRaw } from 'node:zlib';
import { ServiceError } from '../errors.js';
import { literal } from './endpoint.js';
import type { ApiClient } from './http.js';
import { segment } from './url-segment.js';

/** The download request, as sent (the id is a URL segment, checked there). */
function profileRequest(id: string) {
  return {
    method: 'POST' as const,
    // The same internal path on either edition, as written.
    at: literal('job', `/apiv2/support/${segment(id, 'job id')}/download`),
    accept: 'application/octet-stream',
  };
}

/** The zip as downloaded. An internal (v2) endpoint: a server without it answers 404 or 405. */
export async function downloadProfile(client: ApiClient, id: string, signal?: AbortSignal): Promise<Buffer> {
  const body = await client.request({ ...profileRequest(id), responseType: 'bytes', signal });
  return body as Buffer;
}

/** The largest profile JSON summarised: beyond it, saving the zip (`--out`) is the way. */
const MAX_PROFILE_BYTES = 512 * 1024 * 1024;

/**
 * The profile JSON of the last attempt in a downloaded zip (PKWARE APPNOTE: the end record, the central
 * directory, each entry's local header; stored or deflated entries).
 */
export async function profileFromZip(zip: Buffer): Promise<Buffer> {
  const bad = (why: string) => new ServiceError(`the profile download is not a readable zip: ${why}`);
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0 || eocd + 22 > zip.length) throw bad('no end of central directory');
  const entries = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  let best:
    | { attempt: number; offset: number; method: number; size: number; length: number; name: string }
    | undefined;
  for (let n = 0; n < entries; n++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== 0x02014b50) throw bad('a broken central directory');
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const length = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extra = zip.readUInt16LE(at + 30);
    const comment = zip.readUInt16LE(at + 32);
    const offset = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    const m = /(?:^|\/)profile_attempt_(\d+)\.json$/.exec(name);
    const attempt = m ? Number(m[1]) : /\.json$/.test(name) && !/header\.json$/.test(name) ? -1 : undefined;
    if (attempt !== undefined && (!best || attempt > best.attempt))
      best = { attempt, offset, method, size, length, name };
    at += 46 + nameLength + extra + comment;
  }
  if (!best) throw bad('it holds no profile_attempt_N.json');
  const local = best.offset;
  if (local + 30 > zip.length || zip.readUInt32LE(local) !== 0x04034b50)
    throw bad(`no local header for ${best.name}`);
  const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
  const data = zip.subarray(start, start + best.size);
  if (best.method === 0) return data;
  if (best.method !== 8) throw bad(`${best.name} is compressed with method ${best.method}`);
  if (best.length > MAX_PROFILE_BYTES) {
    throw new ServiceError(
      `the profile is larger than ${MAX_PROFILE_BYTES / 1024 / 1024} MiB: too large to summarise`,
      { hint: 'save it as it is with --out FILE' },
    );
  }
  return inflateInto(data, best.length, best.name);
}

/**
 * Inflates into one buffer of the size the central directory gives: a one-shot inflate collects its output
 * in pieces and then copies them together, twice the profile's size at the peak.
 */
function inflateInto(data: Buffer, length: number, name: string): Promise<Buffer> {
  const out = Buffer.allocUnsafe(length);
  let at = 0;
  return new Promise((resolve, reject) => {
    const z = createInflateRaw();
    const fail = (why: string) => {
      z.destroy();
      reject(new ServiceError(`the profile download is not a readable zip: ${name} ${why}`));
    };
    z.on('data', (chunk: Buffer) => {
      if (at + chunk.length > length) return fail('inflates to more than its stated size');
      chunk.copy(out, at);
      at += chunk.length;
    });
    z.on('error', (e) => fail(`does not inflate (${e.message})`));
    z.on('end', () => (at === length ? resolve(out) : fail('inflates to less than its stated size')));
    z.end(data);
  });
}

/** The service's CoreOperatorType names, by number (UserBitShared.proto). */
const OPERATOR_TYPES = (
  'SINGLE_SENDER BROADCAST_SENDER FILTER HASH_AGGREGATE HASH_JOIN MERGE_JOIN HASH_PARTITION_SENDER LIMIT ' +
  'MERGING_RECEIVER ORDERED_PARTITION_SENDER PROJECT UNORDERED_RECEIVER RANGE_SENDER SCREEN ' +
  'SELECTION_VECTOR_REMOVER STREAMING_AGGREGATE TOP_N_SORT EXTERNAL_SORT TRACE UNION OLD_SORT ' +
  'PARQUET_ROW_GROUP_SCAN HIVE_SUB_SCAN SYSTEM_TABLE_SCAN MOCK_SUB_SCAN PARQUET_WRITER DIRECT_SUB_SCAN ' +
  'TEXT_WRITER TEXT_SUB_SCAN JSON_SUB_SCAN INFO_SCHEMA_SUB_SCAN COMPLEX_TO_JSON PRODUCER_CONSUMER ' +
  'HBASE_SUB_SCAN WINDOW NESTED_LOOP_JOIN AVRO_SUB_SCAN MONGO_SUB_SCAN ELASTICSEARCH_SUB_SCAN ' +
  'ELASTICSEARCH_AGGREGATOR_SUB_SCAN FLATTEN EXCEL_SUB_SCAN ARROW_SUB_SCAN ARROW_WRITER JSON_WRITER ' +
  'VALUES_READER CONVERT_FROM_JSON JDBC_SUB_SCAN DICTIONARY_LOOKUP WRITER_COMMITTER ROUND_ROBIN_SENDER ' +
  'BOOST_PARQUET ICEBERG_SUB_SCAN TABLE_FUNCTION DELTALAKE_SUB_SCAN DIR_LISTING_SUB_SCAN ' +
  'ICEBERG_WRITER_COMMITTER GRPC_WRITER MANIFEST_WRITER FLIGHT_SUB_SCAN BRIDGE_FILE_WRITER_SENDER ' +
  'BRIDGE_FILE_READER_RECEIVER BRIDGE_FILE_READER ICEBERG_MANIFEST_WRITER ICEBERG_METADATA_FUNCTIONS_READER ' +
  'ICEBERG_SNAPSHOTS_SUB_SCAN NESSIE_COMMITS_SUB_SCAN SMALL_FILE_COMBINATION_WRITER'
).split(' ');

const operatorTypeName = (n: number): string => OPERATOR_TYPES[n] ?? `OPERATOR_${n}`;

interface OperatorSummary {
  /** `00`, `01`…: the phase (major fragment). */
  phase: string;
  /** `00-02`: phase and operator id, as the service's plan and UI name them. */
  operator: string;
  type: string;
  /** Processing time summed over the phase's threads. */
  processMs: number;
  /** Input records summed over the threads. */
  records: number;
  /** The largest peak of any one thread. */
  peakMemoryBytes: number;
}

export interface ProfileSummary {
  user: string | null;
  query: string | null;
  totalMs: number | null;
  planningMs: number | null;
  queuedMs: number | null;
  queue: string | null;
  phases: Array<{
    phase: string;
    threads: number;
    processMs: number;
    peakMemoryBytes: number;
    durationMs: number | null;
  }>;
  /** The top operators by processing time. */
  operators: OperatorSummary[];
  spills: Array<{ operator: string; type: string; metric: string; value: number }>;
  accelerated: boolean;
  reflections: Array<{ id: string; name: string | null; used: boolean }>;
}

interface OpTotals {
  phase: number;
  id: number;
  type: number;
  processNanos: number;
  records: number;
  peak: number;
  metrics: Map<number, number>;
}

/** Summarises a profile JSON (the bytes, never parsed whole); `top` operators by processing time. */
export function summariseProfile(json: Buffer, top: number): ProfileSummary {
  const r = new Reader(json);
  const ops = new Map<string, OpTotals>();
  const phases = new Map<number, { threads: number; peak: number; start: number; end: number }>();
  const metricNames = new Map<number, Map<number, string>>();
  const top_: Record<string, unknown> = {};
  let layouts: Array<{ id: string; name: string | null; used: boolean }> = [];
  let accelerated = false;
  let scheduling: Record<string, unknown> = {};

  // Each operator is folded into its totals as it is read, and nothing of it is kept (undefined).
  const operator = (phase: number): undefined => {
    r.object(
      {
        operatorId: () => r.number(),
        operatorType: () => r.number(),
        processNanos: () => r.number(),
        peakLocalMemoryAllocated: () => r.number(),
        inputProfile: () => r.array(() => r.object({ records: () => r.number() })),
        metric: () => r.array(() => r.object({ metricId: () => r.number(), longValue: () => r.number() })),
      },
      (o) => {
        const id = num(o.operatorId);
        const key = `${phase}:${id}`;
        let t = ops.get(key);
        if (!t) {
          t = {
            phase,
            id,
            type: num(o.operatorType),
            processNanos: 0,
            records: 0,
            peak: 0,
            metrics: new Map(),
          };
          ops.set(key, t);
        }
        t.processNanos += num(o.processNanos);
        t.peak = Math.max(t.peak, num(o.peakLocalMemoryAllocated));
        for (const input of (o.inputProfile as Array<Record<string, unknown>>) ?? [])
          t.records += num(input.records);
        for (const m of (o.metric as Array<Record<string, unknown>>) ?? []) {
          const mid = num(m.metricId);
          t.metrics.set(mid, (t.metrics.get(mid) ?? 0) + num(m.longValue));
        }
      },
    );
    return undefined;
  };

  const fragment = () => {
    let major = 0;
    const threads: Array<{ start: number; end: number; peak: number }> = [];
    r.object({
      majorFragmentId: () => {
        major = num(r.number());
        return major;
      },
      minorFragmentProfile: () =>
        r.array(() => {
          r.object(
            {
              startTime: () => r.number(),
              endTime: () => r.number(),
              maxMemoryUsed: () => r.number(),
              // The phase's id comes first in the service's files; operators are kept per phase as they come.
              operatorProfile: () => r.array(() => operator(major)),
            },
            (m) => threads.push({ start: num(m.startTime), end: num(m.endTime), peak: num(m.maxMemoryUsed) }),
          );
          return undefined;
        }),
    });
    const p = phases.get(major) ?? { threads: 0, peak: 0, start: Number.POSITIVE_INFINITY, end: 0 };
    for (const t of threads) {
      p.threads++;
      p.peak = Math.max(p.peak, t.peak);
      if (t.start > 0) p.start = Math.min(p.start, t.start);
      p.end = Math.max(p.end, t.end);
    }
    phases.set(major, p);
  };

  r.object({
    start: () => (top_.start = r.number()),
    end: () => (top_.end = r.number()),
    planningStart: () => (top_.planningStart = r.number()),
    planningEnd: () => (top_.planningEnd = r.number()),
    user: () => (top_.user = r.string()),
    query: () => (top_.query = r.string()),
    fragmentProfile: () => r.array(fragment),
    resourceSchedulingProfile: () => (scheduling = r.value() as Record<string, unknown>),
    accelerationProfile: () =>
      r.object({
        accelerated: () => (accelerated = r.value() === true),
        layoutProfiles: () =>
          r.array(() =>
            r.object(
              { layoutId: () => r.string(), name: () => r.string(), numUsed: () => r.number() },
              (l) => {
                layouts.push({
                  id: String(l.layoutId ?? ''),
                  name: (l.name as string) ?? null,
                  used: num(l.numUsed) > 0,
                });
              },
            ),
          ),
      }),
    operatorTypeMetricsMap: () =>
      r.object({
        metricsDef: () => {
          let type = 0;
          r.array(() => {
            const names = new Map<number, string>();
            r.object({
              metricDef: () =>
                r.array(() => {
                  r.object({ id: () => r.number(), name: () => r.string() }, (d) => {
                    names.set(num(d.id), String(d.name));
                  });
                  return undefined;
                }),
            });
            metricNames.set(type++, names);
          });
        },
      }),
  });
  layouts = layouts.filter((l) => l.id !== '');

  const span = (a: unknown, b: unknown) => {
    const x = num(a);
    const y = num(b);
    return x > 0 && y >= x ? y - x : null;
  };
  const pad = (n: number) => String(n).padStart(2, '0');
  const all = [...ops.values()];
  const spills: ProfileSummary['spills'] = [];
  for (const o of all) {
    for (const [mid, value] of o.metrics) {
      const name = metricNames.get(o.type)?.get(mid);
      if (name && /SPILL/.test(name) && !/^OOB_/.test(name) && value > 0) {
        spills.push({
          operator: `${pad(o.phase)}-${pad(o.id)}`,
          type: operatorTypeName(o.type),
          metric: name,
          value,
        });
      }
    }
  }
  return {
    user: typeof top_.user === 'string' ? top_.user : null,
    query: typeof top_.query === 'string' ? top_.query : null,
    totalMs: span(top_.start, top_.end),
    planningMs: span(top_.planningStart, top_.planningEnd),
    queuedMs: span(scheduling.resourceSchedulingStart, scheduling.resourceSchedulingEnd),
    queue: typeof scheduling.queueName === 'string' && scheduling.queueName ? scheduling.queueName : null,
    phases: [...phases.entries()]
      .sort(([a], [b]) => a - b)
      .map(([major, p]) => ({
        phase: pad(major),
        threads: p.threads,
        processMs: nanosToMs(all.filter((o) => o.phase === major).reduce((n, o) => n + o.processNanos, 0)),
        peakMemoryBytes: p.peak,
        durationMs: p.end > 0 && Number.isFinite(p.start) ? p.end - p.start : null,
      })),
    operators: all
      .sort((a, b) => b.processNanos - a.processNanos || a.phase - b.phase || a.id - b.id)
      .slice(0, top)
      .map((o) => ({
        phase: pad(o.phase),
        operator: `${pad(o.phase)}-${pad(o.id)}`,
        type: operatorTypeName(o.type),
        processMs: nanosToMs(o.processNanos),
        records: o.records,
        peakMemoryBytes: o.peak,
      })),
    spills,
    accelerated: accelerated || layouts.some((l) => l.used),
    reflections: layouts,
  };
}

const nanosToMs = (n: number): number => Math.round(n / 1e4) / 100;
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/**
 * A reader of JSON bytes that materialises only what it is asked for: `object(fields)` calls the reader of
 * each named field and skips every other value without building it (long strings included).
 */
class Reader {
  private i = 0;

  constructor(private readonly b: Buffer) {}

  private fail(what: string): never {
    throw new ServiceError(`the profile is not valid JSON: ${what} at byte ${this.i}`);
  }

  private ws(): void {
    const b = this.b;
    let c = b[this.i];
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = b[++this.i];
  }

  private expect(c: number): void {
    this.ws();
    if (this.b[this.i] !== c) this.fail(`expected '${String.fromCharCode(c)}'`);
    this.i++;
  }

  /** The end of the string starting at `i` (at its opening quote): the index after its closing quote. */
  private stringEnd(i: number): number {
    const b = this.b;
    let j = i + 1;
    for (;;) {
      const q = b.indexOf(0x22, j);
      if (q < 0) this.fail('an unterminated string');
      let k = q - 1;
      while (b[k] === 0x5c) k--;
      if ((q - 1 - k) % 2 === 0) return q + 1;
      j = q + 1;
    }
  }

  /** At a `null` (read as empty by `object` and `array`). */
  private isNull(): boolean {
    const b = this.b;
    const i = this.i;
    return b[i] === 0x6e && b[i + 1] === 0x75 && b[i + 2] === 0x6c && b[i + 3] === 0x6c;
  }

  string(): string | null {
    this.ws();
    if (this.b[this.i] !== 0x22) return this.value() as null;
    const end = this.stringEnd(this.i);
    const text = this.b.toString('utf8', this.i, end);
    this.i = end;
    return JSON.parse(text) as string;
  }

  number(): number | null {
    const v = this.value();
    return typeof v === 'number' ? v : null;
  }

  /** Any value, built (for the small ones). */
  value(): unknown {
    this.ws();
    const start = this.i;
    this.skip();
    try {
      return JSON.parse(this.b.toString('utf8', start, this.i));
    } catch {
      return this.fail('a value that does not parse');
    }
  }

  /** Skips one value without building it. */
  skip(): void {
    this.ws();
    const b = this.b;
    const c = b[this.i];
    if (c === 0x22) {
      this.i = this.stringEnd(this.i);
      return;
    }
    if (c === 0x7b || c === 0x5b) {
      let depth = 0;
      for (;;) {
        const d = b[this.i];
        if (d === undefined) this.fail('an unterminated object or array');
        if (d === 0x22) {
          this.i = this.stringEnd(this.i);
          continue;
        }
        if (d === 0x7b || d === 0x5b) depth++;
        else if (d === 0x7d || d === 0x5d) depth--;
        this.i++;
        if (depth === 0) return;
      }
    }
    // A number, true, false or null: up to the next delimiter.
    const from = this.i;
    while (this.i < b.length) {
      const d = b[this.i]!;
      if (d === 0x2c || d === 0x7d || d === 0x5d || d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09)
        break;
      this.i++;
    }
    if (this.i === from) this.fail('a missing value');
  }

  /**
   * An object: for each field named in `fields`, its reader (whose result is kept for `done`); every other
   * field is skipped. null reads as an empty object.
   */
  object(
    fields: Record<string, () => unknown>,
    done?: (o: Record<string, unknown>) => void,
  ): Record<string, unknown> {
    this.ws();
    if (this.isNull()) {
      this.i += 4;
      return {};
    }
    this.expect(0x7b);
    const got: Record<string, unknown> = {};
    this.ws();
    if (this.b[this.i] === 0x7d) {
      this.i++;
      done?.(got);
      return got;
    }
    for (;;) {
      this.ws();
      if (this.b[this.i] !== 0x22) this.fail('expected a field name');
      const end = this.stringEnd(this.i);
      const key = this.b.toString('latin1', this.i + 1, end - 1);
      this.i = end;
      this.expect(0x3a);
      const read = Object.hasOwn(fields, key) ? fields[key] : undefined;
      if (read) got[key] = read();
      else this.skip();
      this.ws();
      const c = this.b[this.i++];
      if (c === 0x7d) break;
      if (c !== 0x2c) this.fail("expected ',' or '}'");
    }
    done?.(got);
    return got;
  }

  /** An array, each element read by `each`; null reads as empty. Returns the elements' results. */
  array(each: () => unknown): unknown[] {
    this.ws();
    if (this.isNull()) {
      this.i += 4;
      return [];
    }
    this.expect(0x5b);
    const out: unknown[] = [];
    this.ws();
    if (this.b[this.i] === 0x5d) {
      this.i++;
      return out;
    }
    for (;;) {
      const v = each();
      if (v !== undefined) out.push(v);
      this.ws();
      const c = this.b[this.i++];
      if (c === 0x5d) return out;
      if (c !== 0x2c) this.fail("expected ',' or ']'");
    }
  }
}
