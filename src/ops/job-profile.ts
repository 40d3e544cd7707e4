// A job's query profile as data: the zip as the service sends it, and its summary (total time, phases, the top
// operators by processing time with records and peak memory, spills and reflections). `job profile` and the
// agents' `job_profile_summary` read it. The hosted edition has no public profile download.
import type { ProfileSummary } from '../api/profile.js';
import type { Context } from '../context.js';
import { DlakeError, NotFoundError, ServiceError, UsageError } from '../errors.js';
import { jobNotFound } from './jobs.js';

/** A job's profile summed up, as `job profile -o json` prints it. */
export async function jobProfileSummary(
  ctx: Context,
  given: string,
  top: number,
  signal = ctx.interrupt.signal,
): Promise<{ id: string } & ProfileSummary> {
  const id = await checkProfileRequest(ctx, given, signal);
  return { id, ...(await summariseProfileZip(await downloadJobProfile(ctx, id, signal), top)) };
}

/** The summary of a profile's zip, with the `top` operators by processing time. */
export async function summariseProfileZip(zip: Buffer, top: number): Promise<ProfileSummary> {
  const [{ summariseProfile }, { profileJson }] = await Promise.all([
    import('../api/profile.js'),
    import('../api/profile-zip.js'),
  ]);
  // The JSON is inflated as the summary reads it, never whole (docs/cli-contract.md "Operations insight").
  return summariseProfile(profileJson(zip), top);
}

/**
 * Before the download: an edition that has one, and a job id (a short one looked up in the history). Returns
 * the whole id.
 */
export async function checkProfileRequest(
  ctx: Context,
  given: string,
  signal = ctx.interrupt.signal,
): Promise<string> {
  if (ctx.root().edition === 'cloud') {
    throw new UsageError('the hosted edition (--edition cloud) has no public profile download', {
      hint: "open the job in the hosted edition's web console to see its profile",
    });
  }
  const { resolveJobId } = await import('./jobs.js');
  return resolveJobId(ctx, given, signal);
}

/** The profile's zip as the service sends it; with `into`, handed there a piece at a time, whatever its size. */
export async function downloadJobProfile(
  ctx: Context,
  id: string,
  signal = ctx.interrupt.signal,
  into?: (piece: Buffer) => Promise<void>,
): Promise<Buffer> {
  const api = await import('../api/profile.js');
  try {
    return await api.downloadProfile(await ctx.client(), id, signal, into);
  } catch (e) {
    const missing = profileMissing(e, id);
    if (!(missing instanceof NotFoundError)) throw missing;
    // A job the service knows but has no profile of did not run (cancelled or failed before it executed).
    const { getJob } = await import('../api/jobs.js');
    const status = await getJob(await ctx.client(), id, signal).catch(() => undefined);
    if (status) {
      throw new NotFoundError(`job ${id} has no profile: it did not run (${status.jobState})`, {
        moreInfo: (e as Error).message,
        hint: `\`dlake job why ${id}\` says how far it got`,
      });
    }
    // The job may be one the service no longer keeps whole: its history row says what it was.
    const { historyRowOf } = await import('./jobs.js');
    const row = await historyRowOf(ctx, id, signal).catch(() => undefined);
    if (!row) throw missing;
    const { jobSummary } = await import('../api/job-history.js');
    const j = jobSummary(row);
    throw new NotFoundError(
      `the service has no profile of job ${id} (${j.state}, submitted ${j.submittedAt ?? 'at a time not recorded'}): it keeps none of a job that did not run, nor of one it keeps only the history row of`,
      { moreInfo: (e as Error).message, hint: `\`dlake job why ${id}\` explains it from its history row` },
    );
  }
}

/**
 * A 404 (or 405) of the download: the job unknown to the service (exit 4), or, answered by the web framework
 * itself, a server without the download endpoint (exit 7: it is an internal API, docs/api-facts.md §15).
 */
function profileMissing(e: unknown, id: string): unknown {
  const generic = e instanceof DlakeError && /^HTTP 40[45] |^not found \(404\)|answered 405/.test(e.message);
  if (generic) {
    return new ServiceError('this server has no profile download (POST /apiv2/support/{jobId}/download)', {
      moreInfo: (e as DlakeError).message,
    });
  }
  if (!(e instanceof NotFoundError)) return e;
  return jobNotFound(id, e.message);
}
