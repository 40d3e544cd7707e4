// `dlake doctor --bundle FILE.tar.gz`: what a support engineer asks for, gathered over the API alone on either
// edition (docs/cli-contract.md "Doctor"): doctor's report, dlake's version and settings (no secret), the job
// history slice, the most recent failed jobs with their profiles, reflections, queues and rules (engines and
// engine rules on the hosted edition), the sources' states, and dlake's own request trace of the run; each file
// in MANIFEST.json with its size and what it holds. Every file is searched for the secrets in force before the
// archive is written: one found is exit 9 and no archive. Written as FILE.partial and renamed, as every file.
import { gzipSync } from 'node:zlib';
import type { Context } from '../context.js';
import { DlakeError, LocalIOError } from '../errors.js';
import { redactUrl } from '../util/redact.js';
import type { DoctorReport } from './report.js';
import { tarArchive } from './tar.js';

interface BundleFile {
  path: string;
  holds: string;
  data: Buffer;
}

interface BundleOptions {
  /** The most recent failed jobs to add with their profiles. */
  jobs: number;
  /** The job history slice: this far back from now. */
  sinceMs: number;
  /** The request trace of the run so far (doctor's included), added to as the bundle is gathered. */
  trace: string[];
}

interface BundleOutcome {
  files: { path: string; bytes: number; holds: string }[];
  skipped: { what: string; why: string }[];
  bytes: number;
}

const json = (value: unknown): Buffer => Buffer.from(`${JSON.stringify(value, null, 2)}\n`);

export async function writeBundle(
  ctx: Context,
  out: string,
  report: DoctorReport,
  opts: BundleOptions,
): Promise<BundleOutcome> {
  const files: BundleFile[] = [];
  const skipped: BundleOutcome['skipped'] = [];
  const add = (path: string, holds: string, data: Buffer) => files.push({ path, holds, data });
  /** One part of the bundle: a failure (an edition without it, a refusal) is said in the manifest, not fatal. */
  const part = async (what: string, gather: () => Promise<void>) => {
    try {
      await gather();
    } catch (e) {
      if (!(e instanceof DlakeError)) throw e;
      skipped.push({ what, why: e.message });
    }
  };
  const signal = ctx.interrupt.signal;
  add('doctor.json', "dlake doctor's report: each check, its finding and its fix", json(report));
  add(
    'dlake.json',
    "dlake's version, the platform and the settings in force (no secret)",
    json(settingsOf(ctx)),
  );
  const hosted = report.edition === 'cloud';
  if (report.checks.some((c) => c.check === 'login' && c.status === 'ok')) {
    await part('the job history', async () => {
      const { jobFilter, listJobs } = await import('../ops/jobs.js');
      const since = `${Math.round(opts.sinceMs / 1000)}s`;
      const history = await listJobs(ctx, jobFilter({ since, limit: 1000 }, Date.now()), signal);
      add(
        'jobs/history.json',
        `the job history of the last ${since}, newest first (1,000 jobs at most)`,
        json(history),
      );
      const failed = history.filter((j) => j.state === 'FAILED').slice(0, opts.jobs);
      add('jobs/failed.json', `the ${failed.length} most recent failed jobs of that slice`, json(failed));
      if (hosted) {
        skipped.push({
          what: "the failed jobs' profiles",
          why: 'the hosted edition has no public profile download',
        });
        return;
      }
      const { downloadJobProfile } = await import('../ops/job-profile.js');
      for (const j of failed) {
        await part(`the profile of job ${j.id}`, async () => {
          add(
            `jobs/${j.id}/profile.zip`,
            `the query profile of failed job ${j.id}, as the service sends it`,
            await downloadJobProfile(ctx, j.id, signal),
          );
        });
      }
    });
    await part('the reflections', async () => {
      const { reflectionSummaryList } = await import('../ops/reflections.js');
      add(
        'reflections.json',
        'the reflection summary: each reflection, its dataset, status and use',
        json(await reflectionSummaryList(ctx, {}, signal)),
      );
    });
    const client = await ctx.client();
    if (hosted) {
      await part('the engines', async () => {
        const { listEngines, getEngineRules } = await import('../api/engines.js');
        add('engines.json', "the project's engines", json(await listEngines(client)));
        add('engine-rules.json', 'the rules that route jobs to engines', json(await getEngineRules(client)));
      });
    } else {
      await part('the queues', async () => {
        const { listQueues, getRules } = await import('../api/queues.js');
        add('queues.json', 'the workload queues', json(await listQueues(client)));
        add('rules.json', 'the rules that place jobs on queues', json(await getRules(client)));
      });
    }
    await part("the sources' states", async () => {
      const { listSources } = await import('../api/sources.js');
      const sources = (await listSources(client)).map((s) => {
        const e = s as { name?: unknown; type?: unknown; state?: unknown; id?: unknown };
        return { id: e.id, name: e.name, type: e.type, state: e.state };
      });
      add('sources.json', "each source's name, type and health (never its config)", json(sources));
    });
  } else skipped.push({ what: 'everything read from the service', why: 'the login check did not pass' });
  add(
    'trace.txt',
    "dlake's own request trace of this run, secrets redacted",
    Buffer.from(`${opts.trace.join('\n')}\n`),
  );
  const manifest = {
    createdAt: new Date().toISOString(),
    dlake: __DLAKE_VERSION__,
    profile: report.profile,
    edition: report.edition,
    files: files.map((f) => ({ path: f.path, bytes: f.data.length, holds: f.holds })),
    skipped,
  };
  const all = [...files, { path: 'MANIFEST.json', holds: 'this list', data: json(manifest) }];
  await refuseSecrets(ctx, all);
  const archive = gzipSync(
    tarArchive(
      all.map((f) => ({ path: f.path, data: f.data })),
      new Date(),
    ),
  );
  const { openSink } = await import('../export/target.js');
  const sink = await openSink(out, ctx.streams.stdout, { signal, content: 'binary' });
  try {
    await sink.write(archive, signal);
    await sink.commit();
  } catch (e) {
    await sink.discard();
    throw e;
  }
  return { files: manifest.files, skipped, bytes: archive.length };
}

/** The settings in force as `whoami` shows them, and which DLAKE_ variables are set (their names only). */
function settingsOf(ctx: Context): Record<string, unknown> {
  const s = ctx.settings();
  return {
    version: __DLAKE_VERSION__,
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    profile: s.profileName,
    url: s.url && { ...s.url, value: redactUrl(s.url.value) },
    edition: s.edition,
    projectId: s.projectId,
    timeout: s.timeout,
    caFile: s.caFile,
    insecure: Boolean(ctx.opts.insecure),
    environment: Object.keys(ctx.env)
      .filter((k) => k.startsWith('DLAKE_') || /_PROXY$/i.test(k))
      .sort(),
  };
}

/**
 * The secrets in force (the stored token and what renews it, DLAKE_TOKEN, DLAKE_CLIENT_SECRET) must be in no
 * file of the bundle, a profile's JSON read out of its zip included: one found is exit 9, no archive written.
 */
async function refuseSecrets(ctx: Context, files: BundleFile[]): Promise<void> {
  const s = ctx.settings();
  const stored = ctx.snapshot().credentials.tokens[s.profileName.value];
  const secrets = [
    s.envToken,
    s.envClientCredentials?.clientSecret,
    stored?.token,
    stored?.refreshToken,
    stored?.pat,
    stored?.flight?.token,
  ].filter((v): v is string => typeof v === 'string' && v.length >= 8);
  if (!secrets.length) return;
  const wanted = secrets.flatMap((secret) => [secret, encodeURIComponent(secret)]);
  const longest = Math.max(...wanted.map((w) => Buffer.byteLength(w)));
  for (const f of files) {
    // A profile is compressed: its JSON is searched as it inflates, a piece at a time, each piece with the end
    // of the one before it (a secret may straddle two).
    const pieces = f.path.endsWith('.zip')
      ? (await import('../api/profile-zip.js')).profileJson(f.data)
      : undefined;
    let found = false;
    let tail = '';
    for (let piece = pieces ? pieces.next() : f.data; piece && !found; piece = pieces?.next()) {
      const text = tail + piece.toString('latin1');
      found = wanted.some((w) => text.includes(Buffer.from(w).toString('latin1')));
      tail = text.slice(-longest);
    }
    if (found) {
      throw new LocalIOError(`the bundle would hold a secret in force (in ${f.path}): not written`, {
        hint: 'nothing was written; report it as a bug of dlake, with the file named',
      });
    }
  }
}
