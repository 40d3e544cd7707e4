// What each tool calls: the same functions the commands call (no second implementation of SQL, catalog reads,
// reflections or plans), one small function per tool, so that a command's implementation changing is a
// change here of one line.
import type { ResultField } from '../api/jobs.js';
import type { SearchKind } from '../api/search.js';
import type { JobFilterFlags } from '../commands/job/list.js';
import type { Context } from '../context.js';
import { InterruptedError } from '../errors.js';
import { parseRef } from '../util/catalog-ref.js';
import type { Profiles } from './session.js';

export async function listProfiles(profiles: Profiles) {
  const { rowsOf } = await import('../commands/profile/shared.js');
  const contexts = await Promise.all(profiles.allowed.map((name) => profiles.context(name)));
  return profiles.allowed.map((name, i) => {
    const ctx = contexts[i]!;
    const row = rowsOf(ctx).find((r) => r.name === name);
    const s = ctx.settings();
    return {
      name,
      default: name === profiles.defaultName,
      url: s.url?.value ?? null,
      edition: s.edition.value,
      ...(s.projectId ? { projectId: s.projectId.value } : {}),
      authMethod: row?.authMethod ?? null,
      user: row?.user ?? null,
      // The token's kind and state (`session via password`), never the token.
      token: row?.token ?? (s.envToken ? 'bearer from DLAKE_TOKEN' : 'none'),
    };
  });
}

export async function getEntity(ctx: Context, ref: string) {
  const { resolveRef } = await import('../api/catalog.js');
  const { asReceived } = await import('../util/received.js');
  return asReceived(await resolveRef(await ctx.client(), parseRef(ref)));
}

export async function getLineage(ctx: Context, ref: string) {
  const [{ resolveRef }, { getLineage }, { asReceived }] = await Promise.all([
    import('../api/catalog.js'),
    import('../api/grants.js'),
    import('../util/received.js'),
  ]);
  const client = await ctx.client();
  const entity = await resolveRef(client, parseRef(ref), { exclude: ['children'] });
  return {
    id: entity.id,
    path: entity.path ?? null,
    ...(asReceived(await getLineage(client, entity.id)) as object),
  };
}

export async function reflectionStatus(ctx: Context, q: { match?: string; limit: number }) {
  const [{ reflectionSummaries }, { asReceived }] = await Promise.all([
    import('../api/reflections.js'),
    import('../util/received.js'),
  ]);
  const filter = q.match === undefined ? undefined : { reflectionNameOrDatasetPath: q.match };
  const items: unknown[] = [];
  for await (const s of reflectionSummaries(await ctx.client(), { filter, limit: q.limit })) items.push(s);
  return asReceived(items);
}

export async function planDefinitions(ctx: Context, q: { dir: string; refs: string[]; prune: boolean }) {
  const [{ readPlan }, { planJson }] = await Promise.all([
    import('../commands/ascode.js'),
    import('../ascode/plan.js'),
  ]);
  return planJson(await readPlan(ctx, q.refs, { dir: q.dir, prune: q.prune || undefined }));
}

interface SqlResult {
  jobId: string;
  columns: { name: string; type: unknown }[];
  rows: unknown[];
  /** Rows the job returned in all (the statement's LIMIT included). */
  rowCount: number;
  /** Fewer rows here than the job returned: `maxRows` or `maxBytes` cut them. */
  truncated: boolean;
}

/**
 * Submits `sql`, waits for it and reads up to `maxRows` rows through the delivery pipeline into memory, at most
 * `maxBytes` of them as NDJSON (numbers exactly as the service sent them). `signal` (the client went away, the
 * call was cancelled, SIGTERM) cancels the job on the service.
 */
export async function runSql(
  ctx: Context,
  q: { sql: string; context?: string[]; maxRows: number; maxBytes: number },
  signal: AbortSignal,
): Promise<SqlResult> {
  const [
    { submitSql, waitForJob, requireCompleted, cancelJob },
    { deliverToMemory },
    { resultsPages },
    { pageFetcher },
    { parseJsonExact },
  ] = await Promise.all([
    import('../api/jobs.js'),
    import('../export/memory.js'),
    import('../export/export.js'),
    import('../export/page-fetcher.js'),
    import('../api/exact-json.js'),
  ]);
  const client = await ctx.client();
  const id = await submitSql(client, q.sql, q.context);
  try {
    const status = await waitForJob(client, id, { signal });
    requireCompleted(status, id);
    // The job's results pages, as an export reads them, up to maxRows.
    const source = resultsPages({ fetchPage: pageFetcher(client, id), pageSize: 500, maxRows: q.maxRows });
    // The result's columns, as its first page gives them (the sink keeps text only).
    let columns: readonly ResultField[] | undefined;
    const read = await deliverToMemory(
      {
        ...source,
        async *pieces(s: AbortSignal) {
          for await (const piece of source.pieces(s)) {
            columns ??= piece.columns;
            yield piece;
          }
        },
      },
      { format: 'ndjson', maxBytes: q.maxBytes, signal },
    );
    const rows = read.text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => parseJsonExact(line).value);
    const rowCount = Math.max(status.rowCount ?? source.rowCount, rows.length);
    return {
      jobId: id,
      columns: (columns ?? []).map((f) => ({ name: f.name ?? '', type: f.type })),
      rows,
      rowCount,
      truncated: read.truncated || rowCount > rows.length,
    };
  } catch (err) {
    if (signal.aborted) {
      // Best effort, bounded: the session is ending.
      await cancelJob(client, id, AbortSignal.timeout(5_000)).catch(() => {});
      throw new InterruptedError(`interrupted: job ${id} was cancelled`);
    }
    throw err;
  }
}

export async function searchCatalog(ctx: Context, q: { text: string; types: SearchKind[]; limit: number }) {
  const { searchCatalog } = await import('../commands/search.js');
  return searchCatalog(ctx, q.text, q.types, q.limit);
}

export async function listJobs(ctx: Context, flags: JobFilterFlags) {
  const { jobFilter, listJobs } = await import('../commands/job/list.js');
  return listJobs(ctx, jobFilter(flags, Date.now()));
}

export async function explainJob(ctx: Context, id: string) {
  const { explainJob } = await import('../commands/job/why.js');
  return explainJob(ctx, id);
}

export async function jobProfileSummary(ctx: Context, id: string, top: number) {
  const { jobProfileSummary } = await import('../commands/job/profile.js');
  return jobProfileSummary(ctx, id, top);
}
