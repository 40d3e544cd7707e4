// The system tables the service keeps its jobs in (docs/api-facts.md §15): self-hosted
// `sys.jobs_recent` (every job of the last days) and `sys.jobs` (running ones; every job on older servers,
// which have no `sys.jobs_recent`), hosted `sys.project.history.jobs` and `sys.project.jobs`. Each edition's
// own columns and types: epochs in milliseconds (`*_epoch_millis`, unset 0, unset timestamps 1970-01-01)
// self-hosted, in nanoseconds (`*_epoch`, unset timestamps null) hosted; `queried_datasets` a string such as
// `[Samples.samples.dremio.com.trips]` self-hosted, an array of `{name, type}` hosted.
//
// The rows are one log of jobs in DuckDB: a seeded history generated once (`range()`, so 100,000 jobs cost
// about as little as 100) plus the jobs the emulator ran, added as literal rows to the query that reads a
// system table. Each table is a projection of that log in its edition's columns.
import type { CatalogDataset } from './sql-engine.js';

/** A job the emulator ran, as the system tables show it. */
export interface LoggedJob {
  id: string;
  state: string;
  queryType: string;
  user: string;
  /** The datasets it read, as catalog paths. */
  datasets: string[][];
  /** Epoch ms of each stage; 0 when unset. */
  submitted: number;
  enqueued: number;
  executionStart: number;
  final: number;
  rowsReturned: number;
  accelerated: boolean;
  error: string;
  query: string;
  engine: string;
}

export type HistoryEdition = 'software' | 'legacy' | 'cloud';

/** The stages every job row times, in the order the tables list them (hosted: `execution_planning_start`). */
const STAGES = [
  'submitted',
  'attempt_started',
  'metadata_retrieval',
  'planning_start',
  'query_enqueued',
  'engine_start',
  'execution_planning',
  'execution_start',
  'final_state',
] as const;

/** The log's columns, in order: what both the seeded table and a live row hold. */
const LOG_COLUMNS: Array<[string, string]> = [
  ['job_id', 'VARCHAR'],
  ['status', 'VARCHAR'],
  ['query_type', 'VARCHAR'],
  ['user_name', 'VARCHAR'],
  ['datasets', 'VARCHAR[]'],
  ['quoted', 'VARCHAR[]'],
  ...STAGES.map((s): [string, string] => [`t_${s}`, 'BIGINT']),
  ['cost', 'DOUBLE'],
  ['rows_scanned', 'BIGINT'],
  ['bytes_scanned', 'BIGINT'],
  ['rows_returned', 'BIGINT'],
  ['bytes_returned', 'BIGINT'],
  ['accelerated', 'BOOLEAN'],
  ['queue', 'VARCHAR'],
  ['engine', 'VARCHAR'],
  ['error', 'VARCHAR'],
  ['query', 'VARCHAR'],
  ['rule_name', 'VARCHAR'],
  ['rule_content', 'VARCHAR'],
  ['rule_action', 'VARCHAR'],
];

const SEED_TABLE = 'emu_job_log_seed';
const FINAL = "('COMPLETED', 'FAILED', 'CANCELED')";

/**
 * The seeded history: `rows` jobs, one a minute back from `now`, deterministic. Users include one whose name
 * holds a quote (`o'brien`) and the service's internal `$dremio$`; a tenth failed, a tenth were canceled, a
 * fifth of the completed ones were accelerated.
 */
export function seedHistorySql(rows: number, now: number, edition: HistoryEdition): string {
  const n = Math.max(0, Math.floor(rows));
  const hosted = edition === 'cloud';
  const queue = hosted
    ? "CASE i % 3 WHEN 0 THEN 'SMALL' WHEN 1 THEN 'LARGE' ELSE 'SMALL' END"
    : "CASE i % 3 WHEN 0 THEN 'Low Cost User Queries' WHEN 1 THEN 'High Cost User Queries' ELSE 'UI Previews' END";
  const engine = hosted ? "CASE i % 3 WHEN 2 THEN 'preview' ELSE 'default' END" : "''";
  return `CREATE OR REPLACE TABLE ${SEED_TABLE} AS
WITH g AS (
  SELECT i, md5('history-' || i) AS h, ${now}::BIGINT - i * 60000 AS sub, (i * 7919) % 600000 + 50 AS dur,
    CASE WHEN i % 10 = 3 THEN 'FAILED' WHEN i % 10 = 7 THEN 'CANCELED' ELSE 'COMPLETED' END AS st,
    CASE i % 4 WHEN 0 THEN 'admin' WHEN 1 THEN 'analyst' WHEN 2 THEN 'o''brien' ELSE '$dremio$' END AS usr,
    CASE i % 3 WHEN 0 THEN ['Sales', 'orders'] WHEN 1 THEN ['Samples', 'samples.dremio.com', 'NYC-taxi-trips'] ELSE ['Sales', 'customers'] END AS ds
  FROM range(1, ${n} + 1) AS t(i)
)
SELECT
  substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-' || substr(h, 13, 4) || '-' || substr(h, 17, 4) || '-' || substr(h, 21, 12) AS job_id,
  st AS status,
  ['UI_RUN', 'REST', 'JDBC', 'ODBC', 'UI_PREVIEW', 'FLIGHT', 'ACCELERATOR_CREATE'][i % 7 + 1] AS query_type,
  usr AS user_name,
  [array_to_string(ds, '.')] AS datasets,
  [array_to_string(list_transform(ds, x -> '"' || x || '"'), '.')] AS quoted,
  sub AS t_submitted, sub AS t_attempt_started, sub + 1 AS t_metadata_retrieval, sub + 2 AS t_planning_start,
  sub + 10 AS t_query_enqueued, sub + 11 AS t_engine_start, sub + 12 AS t_execution_planning,
  sub + 20 + dur // 10 AS t_execution_start, sub + dur AS t_final_state,
  (i * 104729 % 50000000)::DOUBLE AS cost,
  (i * 13) % 100000 AS rows_scanned, ((i * 13) % 100000) * 120 AS bytes_scanned,
  CASE WHEN st = 'COMPLETED' THEN i % 1000 ELSE 0 END AS rows_returned,
  CASE WHEN st = 'COMPLETED' THEN (i % 1000) * 64 ELSE 0 END AS bytes_returned,
  st = 'COMPLETED' AND i % 5 = 0 AS accelerated,
  ${queue} AS queue,
  ${engine} AS engine,
  CASE st WHEN 'FAILED' THEN 'Object ''orders_' || i || ''' not found within ''Sales''' WHEN 'CANCELED' THEN 'Query cancelled by user ''' || usr || '''' ELSE '' END AS error,
  'SELECT * FROM ' || array_to_string(list_transform(ds, x -> '"' || x || '"'), '.') || ' WHERE id = ' || i AS query,
  ${queue} AS rule_name,
  'query_cost() < 30000000' AS rule_content,
  'PLACE' AS rule_action
FROM g`;
}

/**
 * The hosted history's lag: `sys.project.history.jobs` is refreshed hourly, so it holds the jobs that ended
 * at least this long ago (docs/api-facts.md §15). `sys.project.jobs` holds the running jobs and those that
 * ended within HOSTED_LIVE_WINDOW_MS: a job that ended between the two is in both tables.
 */
const HOSTED_HISTORY_LAG_MS = 60 * 60_000;
const HOSTED_LIVE_WINDOW_MS = 90 * 60_000;

/**
 * The system tables this edition has, as datasets the SQL engine reads (CatalogDataset kind `system`), as
 * they stand at `now`.
 */
export function systemDatasets(
  edition: HistoryEdition,
  live: readonly LoggedJob[],
  now: number,
): CatalogDataset[] {
  const log = liveLogSql(live, edition);
  const table = (path: string[], columns: string, where = ''): CatalogDataset => ({
    path,
    kind: 'system',
    sql: `SELECT ${columns} FROM (${log}) AS j${where}`,
  });
  const running = ` WHERE status NOT IN ${FINAL}`;
  if (edition === 'cloud') {
    const cols = hostedColumns();
    const ended = ` WHERE status IN ${FINAL} AND t_final_state <= ${now - HOSTED_HISTORY_LAG_MS}`;
    const recent = ` WHERE status NOT IN ${FINAL} OR t_final_state > ${now - HOSTED_LIVE_WINDOW_MS}`;
    return [
      table(['sys', 'project', 'history', 'jobs'], cols, ended),
      table(['sys', 'project', 'jobs'], cols, recent),
    ];
  }
  if (edition === 'legacy') return [table(['sys', 'jobs'], selfHostedColumns('legacy'))];
  return [
    table(['sys', 'jobs_recent'], selfHostedColumns('recent')),
    table(['sys', 'jobs'], selfHostedColumns('running'), running),
  ];
}

/** The seeded log and the live jobs as one relation of LOG_COLUMNS. */
function liveLogSql(live: readonly LoggedJob[], edition: HistoryEdition): string {
  const rows = live.map((j) => liveRow(j, edition));
  return [`SELECT * FROM ${SEED_TABLE}`, ...rows].join(' UNION ALL ');
}

function liveRow(j: LoggedJob, edition: HistoryEdition): string {
  const queue = edition === 'cloud' ? 'SMALL' : '';
  const values: Record<string, string> = {
    job_id: lit(j.id),
    status: lit(j.state),
    query_type: lit(j.queryType),
    user_name: lit(j.user),
    datasets: list(j.datasets.map((p) => p.join('.'))),
    quoted: list(j.datasets.map((p) => p.map((c) => `"${c}"`).join('.'))),
    t_submitted: String(j.submitted),
    t_attempt_started: String(j.submitted),
    t_metadata_retrieval: String(j.submitted),
    t_planning_start: String(j.submitted),
    t_query_enqueued: String(j.enqueued),
    t_engine_start: String(j.enqueued),
    t_execution_planning: String(j.executionStart),
    t_execution_start: String(j.executionStart),
    t_final_state: String(j.final),
    cost: '1.0',
    rows_scanned: String(j.rowsReturned),
    bytes_scanned: String(j.rowsReturned * 64),
    rows_returned: String(j.rowsReturned),
    bytes_returned: String(j.rowsReturned * 64),
    accelerated: String(j.accelerated),
    queue: lit(queue),
    engine: lit(j.engine),
    error: lit(j.error),
    query: lit(j.query),
    rule_name: lit(queue),
    rule_content: lit(''),
    rule_action: lit(queue ? 'PLACE' : ''),
  };
  return `SELECT ${LOG_COLUMNS.map(([c, t]) => `CAST(${values[c]} AS ${t}) AS ${c}`).join(', ')}`;
}

const lit = (s: string): string => `'${s.replaceAll("'", "''")}'`;
const list = (items: string[]): string => `[${items.map(lit).join(', ')}]::VARCHAR[]`;

/** Self-hosted columns: `recent` (sys.jobs_recent), `running` (sys.jobs), `legacy` (sys.jobs before 25.x). */
function selfHostedColumns(table: 'recent' | 'running' | 'legacy'): string {
  const cols = [
    'job_id',
    'status',
    'query_type',
    'user_name',
    "CASE WHEN len(datasets) = 0 THEN '' ELSE '[' || array_to_string(datasets, ', ') || ']' END AS queried_datasets",
    "CASE WHEN len(datasets) = 0 THEN '' ELSE '[' || array_to_string(list_transform(datasets, x -> string_split(x, '.')[-1]), ', ') || ']' END AS scanned_datasets",
    '1::INTEGER AS attempt_count',
    ...STAGES.map((s) => `epoch_ms(t_${s}) AS ${s}_ts`),
    ...STAGES.map((s) => `t_${s} AS ${s}_epoch_millis`),
    'cost AS planner_estimated_cost',
    'rows_scanned',
    'bytes_scanned',
    'rows_returned',
    'bytes_returned',
    'accelerated',
    'queue AS queue_name',
    'engine',
    'error AS error_msg',
    'query',
  ];
  if (table === 'legacy') return cols.join(', ');
  cols.push(
    'false AS is_profile_incomplete',
    'bytes_scanned * 4 AS execution_allocated_bytes',
    '(t_final_state - t_execution_start) // 2 AS execution_cpu_time_millis',
    'rule_name',
    'rule_content',
    'rule_action',
  );
  if (table === 'recent') {
    cols.push(
      'cost AS query_cost',
      'bytes_scanned * 4 AS memory_allocated',
      '1000000::BIGINT AS setup_time_ns',
      '(t_execution_start - t_query_enqueued) * 1000000 AS wait_time_ns',
      '(t_final_state - t_execution_start) * 500000 AS execution_cpu_time_ns',
      "'' AS context",
    );
  }
  return cols.join(', ');
}

/** Hosted columns (sys.project.history.jobs; sys.project.jobs the same): epochs in nanoseconds, nulls unset. */
function hostedColumns(): string {
  const stage = (s: string) => (s === 'execution_planning' ? 'execution_planning_start' : s);
  return [
    'job_id',
    'status',
    'query_type',
    'user_name',
    "CASE WHEN len(quoted) = 0 THEN NULL ELSE list_transform(quoted, x -> {'name': x, 'type': 'PHYSICAL_DATASET_SOURCE_FILE'}) END AS queried_datasets",
    'NULL::VARCHAR AS scanned_datasets',
    '(t_final_state - t_execution_start) * 500000 AS execution_cpu_time_ns',
    '1::INTEGER AS attempt_count',
    ...STAGES.map((s) => `CASE WHEN t_${s} = 0 THEN NULL ELSE epoch_ms(t_${s}) END AS ${stage(s)}_ts`),
    ...STAGES.map((s) => `t_${s} * 1000000 AS ${stage(s)}_epoch`),
    'cost AS planner_estimated_cost',
    'rows_scanned',
    'bytes_scanned',
    'rows_returned',
    'bytes_returned',
    'accelerated',
    "CASE WHEN queue = '' THEN NULL ELSE queue END AS queue_name",
    "CASE WHEN engine = '' THEN NULL ELSE engine END AS engine",
    'NULL::VARCHAR AS execution_nodes',
    '0::BIGINT AS memory_available',
    "CASE WHEN error = '' THEN NULL ELSE error END AS error_msg",
    'query',
    'NULL::VARCHAR AS query_chunks',
    'NULL::VARCHAR AS reflection_matches',
    'NULL::TIMESTAMP AS starting_ts',
    '0::BIGINT AS starting_epoch',
  ].join(', ');
}

/**
 * Whether a query names a system table, so that only such queries pay for building the live rows. The service
 * is case-insensitive about identifiers, and so is this check.
 */
export const NAMES_SYSTEM_TABLE = /\bsys\s*\.\s*(?:"?project"?\s*\.\s*)?(?:"?history"?\s*\.\s*)?"?jobs/i;

/** The table a query names that this edition lacks, for the service's "not found" failure; else undefined. */
export function missingSystemTable(sql: string, edition: HistoryEdition): string | undefined {
  const m = /\bsys\s*\.\s*"?(jobs_recent|project)\b/i.exec(sql);
  if (!m) return undefined;
  const name = m[1]!.toLowerCase();
  if (edition === 'cloud') return name === 'project' ? undefined : name;
  if (edition === 'legacy' && name === 'jobs_recent') return name;
  return name === 'project' ? name : undefined;
}
