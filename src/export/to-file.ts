// `--out FILE|-` of `sql`, `job export` and the SQL shell's `\o`: every row of a completed job streamed to a
// file (or standard output) over REST, with a progress bar when stderr is a terminal, and one line at the end
// saying what was written.
import { describeWait } from '../api/pacing.js';
import type { Context } from '../context.js';
import { countRows } from '../util/units.js';
import { exportRows } from './export.js';
import type { ExportSpec } from './formats.js';
import { pageFetcher, type RowsSource } from './page-fetcher.js';
import { exportFeedback } from './progress.js';
import type { ResumeRecord } from './sink.js';
import { openSink } from './target.js';

interface ExportToFile extends RowsSource, ExportSpec {
  out: string;
  /** Continue FILE.partial from here (checked by checkResume). */
  resume?: ResumeRecord;
}

/** Streams every row of the job to `req.out`, then says how many rows went where, and how long it took. */
export async function exportToFile(ctx: Context, req: ExportToFile): Promise<void> {
  const fetchPage =
    req.format === 'csv'
      ? (await import('./csv-pages.js')).csvPageFetcher(req.client, req.id)
      : pageFetcher(req.client, req.id);
  // Stoppable from here: opening a named pipe waits for its reader until one comes or a signal ends it.
  ctx.interruptible = true;
  const sink = await openSink(req.out, ctx.streams.stdout, {
    gzip: req.gzip,
    record: { jobId: req.id, format: req.format },
    resume: req.resume,
    noClobber: req.noClobber,
    signal: req.signal ?? ctx.interrupt.signal,
    content: req.format,
    // Said, so that a person knows what the export waits for (and that a signal ends the wait).
    onWait: () => ctx.ui.notice(`waiting for a reader of the named pipe ${req.out}…`),
  });
  const kept = req.resume?.rows ?? 0;
  const feedback = exportFeedback(ctx, req.out);
  const { bar } = feedback;
  // The bar says when the hosted edition's rate limit holds the pages back (src/api/pacing.ts).
  const pacer = bar ? await ctx.pacer() : undefined;
  const stopListening = pacer?.onWait((e) =>
    bar?.waiting('limit' in e ? describeWait(e.limit, e.waitMs) : undefined),
  );
  let outcome: Awaited<ReturnType<typeof exportRows>>;
  try {
    outcome = await exportRows({
      fetchPage,
      format: req.format,
      target: sink,
      pageSize: req.pageSize ?? 500,
      concurrency: req.concurrency,
      startOffset: kept,
      continuing: kept > 0,
      resumeState: req.resume && { state: req.resume.writer, bytes: req.resume.bytes },
      signal: req.signal ?? ctx.interrupt.signal,
      onProgress: bar ? (rows, total) => bar.update(kept + rows, kept + total) : undefined,
      resumeHint: `resume with: dlake job export ${req.id} --out ${shellWord(req.out)} --resume`,
    });
  } finally {
    stopListening?.();
    feedback.done();
  }
  feedback.wrote(kept + outcome.rows, req, kept > 0 ? `, resumed after ${countRows(kept)}` : '');
}

/** A file name as one word of a shell command line (quoted only when it needs to be). */
function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
