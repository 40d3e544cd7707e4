// What each tool calls: the operations the commands call (src/ops: no second implementation of SQL, catalog
// reads, reflections, jobs or plans), one small function per tool shaping its arguments and its answer.
// `signal`, where given, cancels the operation (the call was cancelled, the client went away).
import type { SearchKind } from '../api/search.js';
import type { Context } from '../context.js';
import type { JobFilterFlags } from '../ops/jobs.js';
import { parseRef } from '../util/catalog-ref.js';
import type { Profiles } from './session.js';

export async function listProfiles(profiles: Profiles) {
  const { profileRows } = await import('../ops/profiles.js');
  const contexts = await Promise.all(profiles.allowed.map((name) => profiles.context(name)));
  return profiles.allowed.map((name, i) => {
    const ctx = contexts[i]!;
    const row = profileRows(ctx).find((r) => r.name === name);
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

export async function getEntity(ctx: Context, ref: string, signal?: AbortSignal) {
  const [{ getEntity }, { asReceived }] = await Promise.all([
    import('../ops/catalog.js'),
    import('../util/received.js'),
  ]);
  return asReceived(await getEntity(ctx, parseRef(ref), {}, signal));
}

export async function getLineage(ctx: Context, ref: string, signal?: AbortSignal) {
  const [{ getLineage }, { asReceived }] = await Promise.all([
    import('../ops/catalog.js'),
    import('../util/received.js'),
  ]);
  const { entity, lineage } = await getLineage(ctx, parseRef(ref), signal);
  return { id: entity.id, path: entity.path ?? null, ...(asReceived(lineage) as object) };
}

export async function reflectionStatus(
  ctx: Context,
  q: { match?: string; limit: number },
  signal?: AbortSignal,
) {
  const [{ reflectionSummaryList }, { asReceived }] = await Promise.all([
    import('../ops/reflections.js'),
    import('../util/received.js'),
  ]);
  const filter = q.match === undefined ? undefined : { reflectionNameOrDatasetPath: q.match };
  return asReceived(await reflectionSummaryList(ctx, { filter, limit: q.limit }, signal));
}

export async function planDefinitions(
  ctx: Context,
  q: { dir: string; refs: string[]; prune: boolean },
  signal?: AbortSignal,
) {
  const [{ planFor }, { planJson }] = await Promise.all([
    import('../ops/plan.js'),
    import('../ascode/plan.js'),
  ]);
  return planJson((await planFor(ctx, q.refs, { dir: q.dir, prune: q.prune || undefined }, signal)).entries);
}

export async function runSql(
  ctx: Context,
  q: { sql: string; context?: string[]; maxRows: number; maxBytes: number },
  signal?: AbortSignal,
) {
  const { runSql } = await import('../ops/sql.js');
  return runSql(ctx, q, signal);
}

export async function searchCatalog(
  ctx: Context,
  q: { text: string; types: SearchKind[]; limit: number },
  signal?: AbortSignal,
) {
  const { searchCatalog } = await import('../ops/search.js');
  return searchCatalog(ctx, q.text, q.types, q.limit, signal);
}

export async function listJobs(ctx: Context, flags: JobFilterFlags, signal?: AbortSignal) {
  const { jobFilter, listJobs } = await import('../ops/jobs.js');
  return listJobs(ctx, jobFilter(flags, Date.now()), signal);
}

/** As `job why -o json`, with the warnings it says on stderr, where there are some, as `warnings`. */
export async function explainJob(ctx: Context, id: string, signal?: AbortSignal) {
  const { explainJob } = await import('../ops/jobs.js');
  const { job, warnings } = await explainJob(ctx, id, signal);
  return warnings.length ? { ...job, warnings } : job;
}

export async function jobProfileSummary(ctx: Context, id: string, top: number, signal?: AbortSignal) {
  const { jobProfileSummary } = await import('../ops/job-profile.js');
  return jobProfileSummary(ctx, id, top, signal);
}
