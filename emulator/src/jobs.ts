// Jobs area: POST /api/v3/sql, job status, results paging and cancel (docs/api-facts.md §4).
// Queries run on DuckDB through ./sql-engine.ts over the generated table `big` and the catalog's datasets.
//
// Test hook: a SQL comment `/* sleep:<ms> */` anywhere in the query keeps the job RUNNING that much longer
// before the query runs, so a test can cancel a running job or ask for the results of one.
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { seededReflectionsOn } from './admin/reflections.js';
import type { AreaContext } from './area.js';
import { type CtasCatalog, type CtasStatement, parseCtas } from './ctas.js';
import { requireAuth } from './guards.js';
import {
  ApiError,
  badRequest,
  type EmuRequest,
  forbidden,
  jsonBody,
  noContent,
  notFound,
  ok,
} from './http.js';
import {
  type HistoryEdition,
  type LoggedJob,
  missingSystemTable,
  NAMES_SYSTEM_TABLE,
  seedHistorySql,
  systemDatasets,
} from './job-history.js';
import { profileZip } from './profile.js';
import type { SearchableJob } from './search.js';
import {
  type CatalogDataset,
  type QueryOutcome,
  type QueryResult,
  type Row,
  SqlEngine,
  type TouchedDataset,
  tableReferences,
  type ViewSchemaListener,
} from './sql-engine.js';

export type JobState =
  | 'PLANNING'
  | 'ENQUEUED'
  | 'STARTING'
  | 'RUNNING'
  | 'CANCELLATION_REQUESTED'
  | 'COMPLETED'
  | 'FAILED'
  | 'CANCELED';

const FINAL: ReadonlySet<JobState> = new Set(['COMPLETED', 'FAILED', 'CANCELED']);

interface Job {
  id: string;
  sql: string;
  context: string[];
  userId: string;
  userName: string;
  state: JobState;
  startedAt: number;
  endedAt?: number;
  schedulingStartedAt?: number;
  schedulingEndedAt?: number;
  /** When it began executing (RUNNING): a job that never did has no profile. */
  executionStartedAt?: number;
  errorMessage: string;
  cancellationReason: string;
  result?: QueryResult;
  /** The result schema, serialized once: results pages are served often and fast. */
  schemaJson?: string;
  touched: TouchedDataset[];
  abort: AbortController;
}

/** What tests see of a job through `emu.jobs`. */
export interface JobInfo {
  id: string;
  sql: string;
  context: string[];
  state: JobState;
  user: string;
  rowCount: number;
  errorMessage: string;
  cancellationReason: string;
}

/** `emu.jobs`: lets tests assert how often (and how) queries were submitted. */
export interface JobsTestApi {
  list(): Array<{ id: string; sql: string; state: JobState; user: string }>;
  get(id: string): JobInfo | undefined;
}

/**
 * `emu.runEngineQuery`: the rows the engine returns for a query, as `JSON.parse` reads the results endpoint's text
 * (so a 64-bit integer or a long decimal is rounded here: the endpoint itself has the exact digits).
 */
export type RunEngineQuery = (sql: string, context?: string[]) => Promise<Row[]>;

/** The jobs area's face, for tests. */
export interface JobsArea {
  jobs: JobsTestApi;
  runEngineQuery: RunEngineQuery;
  /** What the Flight server reads (emulator/src/flight): the engine, the datasets and the jobs' queries. */
  flight: FlightSource;
  /** The jobs as catalog search finds them (emulator/src/search.ts). */
  searchable: () => SearchableJob[];
}

/** The SQL engine and jobs, as the Flight server uses them. */
export interface FlightSource {
  engine: SqlEngine;
  datasets(): CatalogDataset[];
  /** A job's query and its owner, for `sys.job_results."<id>"`; undefined for an unknown id. */
  job(id: string): { sql: string; context: string[]; userId: string; state: JobState } | undefined;
}

const SQL_FIELDS = new Set(['sql', 'context', 'references', 'engineName']);
const RESULTS_MAX_LIMIT = 500;
const SLEEP_HINT = /\/\*\s*sleep\s*:\s*(\d+)\s*\*\//i;
/** The service's job retention, `jobs.max.age_in_days` (docs/api-facts.md §15 "Retention"). */
const JOB_RETENTION_MS = 30 * 24 * 60 * 60_000;

/** What the jobs area needs of the catalog (the catalog area provides it). */
export interface JobsCatalog {
  /** Every table and view the SQL engine may read, at query time (the catalog changes meanwhile). */
  datasets(): CatalogDataset[];
  /** Hears the columns of each view a query expanded (the catalog leaves a view's fields to the engine). */
  recordFields: ViewSchemaListener;
  /** CREATE TABLE … AS: where the new table's files go, and registering it once written (without it, a
   *  CTAS fails as one into a source that does not allow it would). */
  ctas?: CtasCatalog;
  /** Makes tables of the files a query names where their source formats them on query (catalog-write.ts). */
  autoPromote?(paths: readonly string[][]): Promise<void>;
}

export async function registerJobs(area: AreaContext, catalog: JobsCatalog): Promise<JobsArea> {
  const { router, state, options } = area;
  const engine = await SqlEngine.create(options.bigRows ?? 1000, options.restFloats ?? 'java');
  // The system tables' seeded history (emulator/src/job-history.ts).
  const history: HistoryEdition =
    options.edition === 'cloud' ? 'cloud' : options.jobsRecent === false ? 'legacy' : 'software';
  await engine.exec(seedHistorySql(options.jobHistory ?? 200, state.now(), history));
  const stepMs = options.jobStepMs ?? 20;
  const jobs = new Map<string, Job>();
  /**
   * Jobs the job store no longer keeps: ended longer ago than the retention, they answer 404 by id, as on the
   * service, and live on as rows of the history tables. The seeded history stands for such jobs too.
   */
  const retired: LoggedJob[] = [];
  const retentionMs = options.jobRetentionMs ?? JOB_RETENTION_MS;
  const retire = (): void => {
    const cutoff = state.now() - retentionMs;
    for (const [id, job] of jobs) {
      if (job.endedAt === undefined || job.endedAt >= cutoff) continue;
      retired.push(logged(job));
      jobs.delete(id);
    }
  };
  /** The job store as it stands now: what the retention dropped is gone. */
  const kept = (): Map<string, Job> => {
    retire();
    return jobs;
  };
  const running = new Set<Promise<void>>();
  /** Aborted as the emulator closes: no job then waits out a step. */
  const closing = new AbortController();
  // Stop live jobs (and their timers) before DuckDB goes away under them.
  area.onClose(async () => {
    closing.abort();
    for (const job of jobs.values()) if (!FINAL.has(job.state)) job.abort.abort();
    await Promise.allSettled(running);
    engine.close();
  });

  const datasets = (): CatalogDataset[] => catalog.datasets();
  /** The datasets a query may read: the system tables too when it names one (only then are their rows built). */
  const datasetsFor = (sql: string): CatalogDataset[] =>
    NAMES_SYSTEM_TABLE.test(sql)
      ? [
          ...catalog.datasets(),
          ...systemDatasets(history, [...retired, ...[...kept().values()].map(logged)], state.now()),
        ]
      : catalog.datasets();
  const logged = (j: Job): LoggedJob => ({
    id: j.id,
    state: j.state,
    queryType: 'REST',
    user: j.userName,
    datasets: j.touched.map((t) => t.path),
    submitted: j.startedAt,
    enqueued: j.schedulingStartedAt ?? 0,
    executionStart: j.schedulingEndedAt ?? 0,
    final: j.endedAt ?? 0,
    rowsReturned: j.result?.rows.length ?? 0,
    accelerated: j.state === 'COMPLETED' && j.touched.length > 0,
    error: j.state === 'FAILED' ? j.errorMessage : j.cancellationReason,
    query: j.sql,
    engine: history === 'cloud' ? 'default' : '',
  });
  const viewSchema: ViewSchemaListener = (path, fields) => catalog.recordFields(path, fields);

  const run = async (job: Job): Promise<void> => {
    const signal = job.abort.signal;
    try {
      // The service's order (docs/api-facts.md §4.2): planning, then the queue (where resources are
      // scheduled), then starting and running. Each non-final state lasts `jobStepMs`.
      await sleep(stepMs, signal);
      job.state = 'ENQUEUED';
      job.schedulingStartedAt = state.now();
      await sleep(stepMs, signal);
      job.schedulingEndedAt = state.now();
      job.state = 'STARTING';
      await sleep(stepMs, signal);
      job.state = 'RUNNING';
      job.executionStartedAt = state.now();
      await sleep(stepMs + sleepHint(job.sql), signal);
      const ctas = parseCtas(job.sql);
      // A system table this server does not have fails the query naming it, as the service's validation does.
      const missing = missingSystemTable(job.sql, history);
      if (missing) throw new Error(`Object '${missing}' not found within 'sys'`);
      await catalog.autoPromote?.(tableReferences(job.sql, job.context));
      const out = ctas
        ? await createTableAs(ctas, job.context, signal)
        : await engine.query(job.sql, job.context, datasetsFor(job.sql), signal, viewSchema);
      if (signal.aborted) throw new Error('Interrupted');
      job.result = out.result;
      job.schemaJson = JSON.stringify(out.result.schema);
      job.touched = out.touched;
      job.state = 'COMPLETED';
    } catch (err) {
      if (signal.aborted) {
        // CANCELLATION_REQUESTED is visible for one step before the job settles.
        await sleep(stepMs, closing.signal).catch(() => {});
        job.state = 'CANCELED';
      } else {
        job.errorMessage = (err as Error)?.message || String(err);
        job.state = 'FAILED';
      }
    }
    job.endedAt = state.now();
  };

  /** CTAS: the engine writes the result into the target source's folder; the job's rows summarise it. */
  const createTableAs = async (
    ctas: CtasStatement,
    context: string[],
    signal: AbortSignal,
  ): Promise<QueryOutcome> => {
    if (!catalog.ctas) throw new Error('CREATE TABLE is not supported by this catalog.');
    const folder = catalog.ctas.target(ctas.path);
    const file = join(folder, '0_0_0.parquet');
    const { rows, touched } = await engine.copyToParquet(ctas.query, context, datasets(), file, signal);
    await catalog.ctas.register(ctas.path, folder);
    return {
      result: {
        schema: [
          { name: 'Fragment', type: { name: 'VARCHAR' } },
          { name: 'Records', type: { name: 'BIGINT' } },
          { name: 'Path', type: { name: 'VARCHAR' } },
          { name: 'Metadata', type: { name: 'VARBINARY' } },
          { name: 'Partition', type: { name: 'INTEGER' } },
          { name: 'FileSize', type: { name: 'BIGINT' } },
        ],
        rows: [
          JSON.stringify({
            Fragment: '0_0',
            Records: rows,
            Path: file,
            Metadata: null,
            Partition: null,
            FileSize: statSync(file).size,
          }),
        ],
      },
      touched,
    };
  };

  /** The job, when the caller may see it: its submitter or an admin (403 otherwise, docs/api-facts.md §4.2). */
  const visibleJob = (req: EmuRequest): Job => {
    const p = requireAuth(req);
    const id = req.params.id!;
    const job = kept().get(id);
    if (!job) throw notFound(`Could not find a job with id [${id}]`);
    if (!p.admin && job.userId !== p.userId) {
      throw forbidden(`Permission denied on user [${p.userName}] to access job [${id}]`);
    }
    return job;
  };

  router.post('/api/v3/sql', (req) => {
    const p = requireAuth(req);
    const body = parseSqlBody(jsonBody<unknown>(req));
    const job: Job = {
      id: randomUUID(),
      sql: body.sql,
      context: body.context,
      userId: p.userId,
      userName: p.userName,
      state: 'PLANNING',
      startedAt: state.now(),
      errorMessage: '',
      cancellationReason: '',
      touched: [],
      abort: new AbortController(),
    };
    jobs.set(job.id, job);
    // The real call returns once the job is submitted, not finished (docs/api-facts.md §4.1): run it
    // detached.
    const done = run(job).finally(() => running.delete(done));
    running.add(done);
    return ok({ id: job.id });
  });

  router.get('/api/v3/job/:id', (req) => ok(statusJson(visibleJob(req))));

  router.get('/api/v3/job/:id/results', (req) => {
    const offset = intParam(req, 'offset', 0);
    const limit = intParam(req, 'limit', 100);
    // Checked before the job lookup, as the service does (docs/api-facts.md §4.3).
    if (limit > RESULTS_MAX_LIMIT) throw badRequest('limit can not exceed 500 rows');
    const job = visibleJob(req);
    if (job.state !== 'COMPLETED' || !job.result) {
      // The spec says moreInfo explains it; the service's own text is the errorMessage. Both carry it.
      const msg = `Can not fetch details for a job that is in [${job.state}] state.`;
      throw badRequest(msg, { moreInfo: msg });
    }
    // The service does not validate negatives (docs/api-facts.md §4.3, unconfirmed); a 400 is the emulator's
    // choice.
    if (offset < 0) throw badRequest('offset can not be negative');
    if (limit < 0) throw badRequest('limit can not be negative');
    const { rows } = job.result;
    // Each row is kept as the JSON text the service would write (exact digits); a page joins a slice of them.
    const page = rows.slice(offset, offset + limit).join(',');
    const json = `{"rowCount":${rows.length},"schema":${job.schemaJson},"rows":[${page}]}`;
    return { status: 200, json, contentType: 'application/json' };
  });

  // The profile download (docs/api-facts.md "The query profile"): a zip of the job's profile JSON.
  router.post('/apiv2/support/:id/download', async (req) => {
    const job = visibleJob(req);
    // A job cancelled or failed before it executed has no profile to download.
    if (job.executionStartedAt === undefined)
      throw notFound(`No profile for job [${job.id}]: the job did not start executing.`);
    const rels = job.state === 'COMPLETED' && job.touched.length ? acceleration(job.touched) : undefined;
    const chosen = rels?.reflectionRelationships.find((r) => r.relationship === 'CHOSEN');
    const bytes = await profileZip({
      id: job.id,
      sql: job.sql,
      user: job.userName,
      state: job.state,
      startedAt: job.startedAt,
      endedAt: job.endedAt,
      executionStartedAt: job.executionStartedAt,
      schedulingStartedAt: job.schedulingStartedAt,
      schedulingEndedAt: job.schedulingEndedAt,
      rows: job.result?.rows.length ?? 0,
      datasets: job.touched.map((t) => t.path),
      chosen: chosen && { id: chosen.reflectionId!, name: 'emulator reflection', type: 'RAW' },
    });
    return { status: 200, bytes, contentType: 'application/octet-stream' };
  });

  router.post('/api/v3/job/:id/cancel', (req) => {
    const p = requireAuth(req);
    const job = visibleJob(req);
    // A finished job "may have completed and cannot be canceled"; the v3 resource answers it as unknown.
    if (FINAL.has(job.state)) throw notFound(`Could not find a job with id [${job.id}]`);
    if (job.state !== 'CANCELLATION_REQUESTED') {
      job.state = 'CANCELLATION_REQUESTED';
      job.cancellationReason = `Query cancelled by user '${p.userName}'`;
      job.abort.abort();
    }
    return noContent();
  });

  const info = (job: Job): JobInfo => ({
    id: job.id,
    sql: job.sql,
    context: [...job.context],
    state: job.state,
    user: job.userName,
    rowCount: job.result?.rows.length ?? 0,
    errorMessage: job.errorMessage,
    cancellationReason: job.cancellationReason,
  });
  const testApi: JobsTestApi = {
    list: () => [...kept().values()].map((j) => ({ id: j.id, sql: j.sql, state: j.state, user: j.userName })),
    get: (id) => {
      const job = kept().get(id);
      return job ? info(job) : undefined;
    },
  };
  const runEngineQuery: RunEngineQuery = async (sql, context = []) =>
    (await engine.query(sql, context, datasetsFor(sql))).result.rows.map((row) => JSON.parse(row) as Row);
  const flight: FlightSource = {
    engine,
    datasets,
    job: (id) => {
      const j = kept().get(id);
      return j && { sql: j.sql, context: j.context, userId: j.userId, state: j.state };
    },
  };
  const searchable = (): SearchableJob[] =>
    [...kept().values()].map((j) => ({
      id: j.id,
      sql: j.sql,
      user: j.userName,
      state: j.state,
      startedAt: j.startedAt,
    }));
  return { jobs: testApi, runEngineQuery, flight, searchable };
}

interface SqlBody {
  sql: string;
  context: string[];
}

/** The `/sql` body; its class rejects unknown fields, as Jackson does by default (docs/api-facts.md §4.1,
 * §1.4). */
function parseSqlBody(body: unknown): SqlBody {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw invalid('Invalid value.');
  const b = body as Record<string, unknown>;
  for (const k of Object.keys(b)) if (!SQL_FIELDS.has(k)) throw invalidAt(k);
  if (b.sql !== undefined && b.sql !== null && typeof b.sql !== 'string') throw invalidAt('sql');
  // The service's answer to a missing query is not documented; a 400 naming the field is the choice here.
  if (typeof b.sql !== 'string' || !b.sql.trim()) throw badRequest('sql is required and must not be empty');
  const context: string[] = [];
  if (b.context !== undefined && b.context !== null) {
    if (!Array.isArray(b.context)) throw invalidAt('context');
    b.context.forEach((c, i) => {
      if (typeof c !== 'string') throw invalidAt(`context[${i}]`);
      context.push(c);
    });
  }
  if (b.references !== undefined && b.references !== null) {
    if (typeof b.references !== 'object' || Array.isArray(b.references)) throw invalidAt('references');
    for (const [name, ref] of Object.entries(b.references)) {
      if (!ref || typeof ref !== 'object') throw invalidAt(`references.${name}`);
      const r = ref as Record<string, unknown>;
      if (!['BRANCH', 'TAG', 'COMMIT'].includes(r.type as string)) throw invalidAt(`references.${name}.type`);
      if (typeof r.value !== 'string') throw invalidAt(`references.${name}.value`);
    }
  }
  // engineName only routes the job to an engine; the emulator has one.
  if (b.engineName !== undefined && b.engineName !== null && typeof b.engineName !== 'string') {
    throw invalidAt('engineName');
  }
  return { sql: b.sql, context };
}

/** Mapping failures carry no moreInfo (docs/api-facts.md §1.4). */
const invalid = (msg: string): ApiError => new ApiError(400, msg, {});
const invalidAt = (field: string): ApiError => invalid(`Invalid value found at: ${field}`);

/**
 * An Integer query parameter as JAX-RS reads it: absent or blank takes the default; text that is not an
 * int is a ParamException, which JAX-RS answers with 404 and the service's mapper words as below
 * (docs/api-facts.md §1.4, `getParamExceptionErrorMessage`).
 */
function intParam(req: EmuRequest, name: string, def: number): number {
  const raw = req.query.get(name);
  if (raw === null || !raw.trim()) return def;
  const n = /^[+-]?\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= -2_147_483_648 && n <= 2_147_483_647)) {
    throw new ApiError(
      404,
      `HTTP 404 Not Found: QueryParam ${name} (default: ${def}). For input string: "${raw}"`,
    );
  }
  return n;
}

function statusJson(job: Job): Record<string, unknown> {
  const iso = (ms: number | undefined): string | undefined =>
    ms === undefined ? undefined : new Date(ms).toISOString();
  const completed = job.state === 'COMPLETED';
  // Undefined fields are left out by JSON.stringify, as the service omits nulls (docs/api-facts.md §1.3).
  return {
    jobState: job.state,
    rowCount: completed ? (job.result?.rows.length ?? 0) : 0,
    errorMessage: job.errorMessage,
    startedAt: iso(job.startedAt),
    endedAt: iso(job.endedAt),
    acceleration: completed && job.touched.length ? acceleration(job.touched) : undefined,
    queryType: 'REST',
    // No WLM queue is applied to REST jobs in the emulator: empty strings, as the spec shows.
    queueName: '',
    queueId: '',
    resourceSchedulingStartedAt: iso(job.schedulingStartedAt),
    resourceSchedulingEndedAt: iso(job.schedulingEndedAt),
    cancellationReason: job.cancellationReason,
  };
}

/**
 * Stable reflection data for a job: for each dataset it read, the seeded reflections on that very dataset (so the
 * reflection summary names them, on a dataset the job did read): on the first, one CHOSEN, one MATCHED and one
 * CONSIDERED; on any other, one CONSIDERED. A job that read no dataset with seeded reflections (only the
 * generated table `big` has them outside the made-up spaces) has no acceleration, as on the service.
 */
function acceleration(
  touched: TouchedDataset[],
): { reflectionRelationships: Array<Record<string, string>> } | undefined {
  const rels: Array<Record<string, string>> = [];
  touched.forEach(({ path }, i) => {
    const on = seededReflectionsOn(path);
    const kinds = i === 0 ? ['CHOSEN', 'MATCHED', 'CONSIDERED'] : ['CONSIDERED'];
    kinds.forEach((relationship, k) => {
      const reflection = on[k % Math.max(on.length, 1)];
      if (reflection)
        rels.push({ datasetId: reflection.datasetId, reflectionId: reflection.id, relationship });
    });
  });
  return rels.length ? { reflectionRelationships: rels } : undefined;
}

function sleepHint(sql: string): number {
  const m = SLEEP_HINT.exec(sql);
  return m ? Number(m[1]) : 0;
}

/** Resolves after `ms`; rejects at once when `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error('aborted'));
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
