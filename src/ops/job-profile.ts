// A job's query profile as data: the zip as the service sends it, and its summary (total time, phases, the top
// operators by processing time with records and peak memory, spills and reflections). `job profile` and the
// agents' `job_profile_summary` read it. The hosted edition has no public profile download.
import type { ProfileSummary } from '../api/profile.js';
import type { Context } from '../context.js';
import { DlakeError, NotFoundError, ServiceError, UsageError } from '../errors.js';

/** A job's profile summed up, as `job profile -o json` prints it. */
export async function jobProfileSummary(
  ctx: Context,
  id: string,
  top: number,
  signal = ctx.interrupt.signal,
): Promise<{ id: string } & ProfileSummary> {
  await checkProfileRequest(ctx, id);
  return { id, ...(await summariseProfileZip(await downloadJobProfile(ctx, id, signal), top)) };
}

/** The summary of a profile's zip, with the `top` operators by processing time. */
export async function summariseProfileZip(zip: Buffer, top: number): Promise<ProfileSummary> {
  const api = await import('../api/profile.js');
  return api.summariseProfile(await api.profileFromZip(zip), top);
}

/** Before anything is sent: an edition that has a profile download, and a job id. */
export async function checkProfileRequest(ctx: Context, id: string): Promise<void> {
  if (ctx.root().edition === 'cloud') {
    throw new UsageError('the hosted edition (--edition cloud) has no public profile download', {
      hint: "open the job in the hosted edition's web console to see its profile",
    });
  }
  const { isJobId } = await import('../api/job-history.js');
  if (!isJobId(id)) {
    throw new UsageError(`"${id}" is not a job id (a UUID such as 2f067496-7cf0-a70e-0222-34d53a5dc800)`, {
      hint: 'list recent jobs with `dlake job list`',
    });
  }
}

/** The profile's zip as the service sends it. */
export async function downloadJobProfile(
  ctx: Context,
  id: string,
  signal = ctx.interrupt.signal,
): Promise<Buffer> {
  const api = await import('../api/profile.js');
  try {
    return await api.downloadProfile(await ctx.client(), id, signal);
  } catch (e) {
    throw profileMissing(e, id);
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
  return new NotFoundError(`job ${id} not found`, {
    moreInfo: e.message,
    hint: 'list recent jobs with `dlake job list`',
  });
}
