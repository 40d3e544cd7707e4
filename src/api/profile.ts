// The query profile (docs/api-facts.md §15): `POST /apiv2/support/{jobId}/download` answers a
// zip holding `header.json` and `profile_attempt_N.json` (one per attempt). The profile is the service's
// QueryProfile: fragmentProfile (a phase each) → minorFragmentProfile (a thread each) → operatorProfile, with
// times in nanoseconds, input records and peak memory, and operatorTypeMetricsMap naming each operator type's
// metrics (the spill counters among them).
//
// Profiles of large queries are tens of MB of JSON: the summary never parses the file into objects. It walks
// the bytes once, keeping one small record per operator (phase, operator id) and skipping the plans and other
// long texts, so a 100 MB profile is summarised in about the memory of its own bytes.
import { ServiceError } from '../errors.js';
import { literal } from './endpoint.js';
import type { ApiClient } from './http.js';
import { type ByteSource, bufferSource } from './profile-zip.js';
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

/**
 * The zip as downloaded (at most the 64 MiB any answer may be), or, with `into`, handed there a piece at a time
 * whatever its size. An internal (v2) endpoint: a server without it answers 404 or 405.
 */
export async function downloadProfile(
  client: ApiClient,
  id: string,
  signal?: AbortSignal,
  into?: (piece: Buffer) => Promise<void>,
): Promise<Buffer> {
  const body = await client.request({ ...profileRequest(id), responseType: 'bytes', signal, bodyInto: into });
  return body as Buffer;
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
export function summariseProfile(json: Buffer | ByteSource, top: number): ProfileSummary {
  const r = new Reader(Buffer.isBuffer(json) ? bufferSource(json) : json);
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

/** The longest value the summary builds (a query's text, a small object): a longer one is refused, not held. */
const MAX_KEPT_BYTES = 64 * 1024 * 1024;

/**
 * A reader of JSON bytes that materialises only what it is asked for: `object(fields)` calls the reader of
 * each named field and skips every other value without building it (long strings included). The bytes come
 * from a source a piece at a time (a zip entry inflating as it is read): positions are counted from the
 * stream's start, and the buffer holds only what is not yet read, or the value being built (`keep`).
 */
class Reader {
  private buf = Buffer.alloc(0);
  /** Bytes of `buf` in use. */
  private len = 0;
  /** The stream position of buf[0]. */
  private base = 0;
  /** The stream position of the next byte to read. */
  private i = 0;
  /** The stream position from which bytes are kept (a value being built), or -1. */
  private keep = -1;
  private ended = false;

  constructor(private readonly source: ByteSource) {}

  private fail(what: string): never {
    throw new ServiceError(`the profile is not valid JSON: ${what} at byte ${this.i}`);
  }

  /** The byte at stream position `p` (undefined past the end), reading on as needed. */
  private at(p: number): number | undefined {
    while (p - this.base >= this.len) if (!this.more()) return undefined;
    return this.buf[p - this.base];
  }

  /** Reads the source's next piece into the buffer, dropping what no one needs any more. Whether there was one. */
  private more(): boolean {
    if (this.ended) return false;
    const next = this.source.next();
    if (!next) {
      this.ended = true;
      return false;
    }
    const from = (this.keep >= 0 ? Math.min(this.keep, this.i) : this.i) - this.base;
    if (from > 0) {
      this.buf.copyWithin(0, from, this.len);
      this.len -= from;
      this.base += from;
    }
    if (this.keep >= 0 && this.len + next.length > MAX_KEPT_BYTES)
      this.fail(`a value longer than ${MAX_KEPT_BYTES / 1024 / 1024} MiB`);
    if (this.len + next.length > this.buf.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.len + next.length, this.buf.length * 2));
      this.buf.copy(bigger, 0, 0, this.len);
      this.buf = bigger;
    }
    next.copy(this.buf, this.len);
    this.len += next.length;
    return true;
  }

  /** The bytes from stream position `from` to the current one (kept since `from`). */
  private text(from: number, encoding: BufferEncoding = 'utf8'): string {
    return this.buf.toString(encoding, from - this.base, this.i - this.base);
  }

  private ws(): void {
    let c = this.at(this.i);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = this.at(++this.i);
  }

  private expect(c: number): void {
    this.ws();
    if (this.at(this.i) !== c) this.fail(`expected '${String.fromCharCode(c)}'`);
    this.i++;
  }

  /** Past the string that starts here (at its opening quote), a buffer at a time. */
  private skipString(): void {
    let escaped = false;
    this.i++;
    for (;;) {
      if (this.i - this.base >= this.len && !this.more()) this.fail('an unterminated string');
      const b = this.buf;
      const end = this.len;
      let k = this.i - this.base;
      for (; k < end; k++) {
        const c = b[k];
        if (escaped) escaped = false;
        else if (c === 0x5c) escaped = true;
        else if (c === 0x22) {
          this.i = this.base + k + 1;
          return;
        }
      }
      this.i = this.base + end;
    }
  }

  /** At a `null` (read as empty by `object` and `array`). */
  private isNull(): boolean {
    const i = this.i;
    return (
      this.at(i) === 0x6e && this.at(i + 1) === 0x75 && this.at(i + 2) === 0x6c && this.at(i + 3) === 0x6c
    );
  }

  /** The value that starts here, built from its bytes by `build` (kept only while it is read). */
  private kept<T>(read: () => void, build: (from: number) => T): T {
    const from = this.i;
    this.keep = from;
    try {
      read();
      return build(from);
    } finally {
      this.keep = -1;
    }
  }

  string(): string | null {
    this.ws();
    if (this.at(this.i) !== 0x22) return this.value() as null;
    return this.kept(
      () => this.skipString(),
      (from) => JSON.parse(this.text(from)) as string,
    );
  }

  number(): number | null {
    const v = this.value();
    return typeof v === 'number' ? v : null;
  }

  /** Any value, built (for the small ones). */
  value(): unknown {
    this.ws();
    return this.kept(
      () => this.skip(),
      (from) => {
        try {
          return JSON.parse(this.text(from));
        } catch {
          return this.fail('a value that does not parse');
        }
      },
    );
  }

  /** Skips one value without building it. */
  skip(): void {
    this.ws();
    const c = this.at(this.i);
    if (c === 0x22) {
      this.skipString();
      return;
    }
    if (c === 0x7b || c === 0x5b) {
      let depth = 0;
      for (;;) {
        const d = this.at(this.i);
        if (d === undefined) this.fail('an unterminated object or array');
        if (d === 0x22) {
          this.skipString();
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
    for (;;) {
      const d = this.at(this.i);
      if (
        d === undefined ||
        d === 0x2c ||
        d === 0x7d ||
        d === 0x5d ||
        d === 0x20 ||
        d === 0x0a ||
        d === 0x0d ||
        d === 0x09
      )
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
    if (this.at(this.i) === 0x7d) {
      this.i++;
      done?.(got);
      return got;
    }
    for (;;) {
      this.ws();
      if (this.at(this.i) !== 0x22) this.fail('expected a field name');
      const key = this.kept(
        () => this.skipString(),
        (from) => this.buf.toString('latin1', from + 1 - this.base, this.i - 1 - this.base),
      );
      this.expect(0x3a);
      const read = Object.hasOwn(fields, key) ? fields[key] : undefined;
      if (read) got[key] = read();
      else this.skip();
      this.ws();
      const c = this.at(this.i++);
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
    if (this.at(this.i) === 0x5d) {
      this.i++;
      return out;
    }
    for (;;) {
      const v = each();
      if (v !== undefined) out.push(v);
      this.ws();
      const c = this.at(this.i++);
      if (c === 0x5d) return out;
      if (c !== 0x2c) this.fail("expected ',' or ']'");
    }
  }
}
