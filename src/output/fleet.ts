// The merged result of one command run across several profiles (src/fleet.ts; docs/cli-contract.md "Fleets"):
// a table or CSV with a leading PROFILE column, a JSON array of {profile, ok, data | error}, NDJSON lines each
// carrying `profile`. What a profile's run said on stderr is passed on, each line led by its profile's name.
import type { OutputFormat } from '../global-options.js';
import type { Theme } from './color.js';
import { render, rowsAndView } from './render.js';
import { stderrSafe } from './safe-text.js';
import type { Streams } from './ui.js';
import type { Renderable, View } from './view.js';

/** What one profile's run of the command gave. */
export interface ProfileRun {
  profile: string;
  /** Its exit code. */
  code: number;
  /** What it wrote to stdout itself, beside what it printed as a result (the text of `plan`, say). */
  stdout: string;
  stderr: string;
  /** What it printed as results, in the format it chose. */
  printed: Array<{ r: Renderable; format: OutputFormat }>;
}

interface MergeOptions {
  streams: Streams;
  theme: Theme;
  width?: number;
  query?: string;
  /** The format when no profile printed a result (all failed): the command line's. */
  format: OutputFormat;
}

/** The error a failed profile's run said: its `error:` line without the label. */
function errorOf(run: ProfileRun): { message: string; exitCode: number } {
  const line = run.stderr.split('\n').find((l) => l.startsWith('error: '));
  return { message: line?.slice('error: '.length) ?? `exit code ${run.code}`, exitCode: run.code };
}

/** One value of a profile's result as an object that can carry `profile` (a scalar as `{value}`). */
const asObject = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : { value: v };

/** The merged result as one Renderable in `format`. */
function merged(runs: readonly ProfileRun[], format: OutputFormat): Renderable<Record<string, unknown>> {
  const data = (run: ProfileRun) => {
    const printed = run.printed.map((p) => p.r.data);
    return printed.length === 1 ? printed[0] : printed;
  };
  if (format === 'json') {
    return {
      data: runs.map((run) =>
        run.code === 0
          ? { profile: run.profile, ok: true, data: data(run) }
          : { profile: run.profile, ok: false, error: errorOf(run) },
      ),
    };
  }
  if (format === 'ndjson') {
    return {
      data: runs.flatMap((run) => {
        if (run.code !== 0) return [{ profile: run.profile, ok: false, error: errorOf(run) }];
        return run.printed.flatMap(({ r }) =>
          (Array.isArray(r.data) ? r.data : [r.data]).map((item) => ({
            profile: run.profile,
            ...asObject(item),
          })),
        );
      }),
    };
  }
  // table and csv: the columns of every profile's view, in the order first seen, after PROFILE.
  const headers: string[] = [];
  const rows: Array<Record<string, unknown>> = [];
  for (const run of runs) {
    if (run.code !== 0) continue;
    for (const { r } of run.printed) {
      const t = rowsAndView(r);
      for (const c of t.view.columns) if (!headers.includes(c.header)) headers.push(c.header);
      for (const row of t.rows) {
        const cells: Record<string, unknown> = { PROFILE: run.profile };
        for (const c of t.view.columns) cells[c.header] = c.value(row);
        rows.push(cells);
      }
    }
  }
  const view: View<Record<string, unknown>> = {
    columns: ['PROFILE', ...headers].map((header) => ({ header, value: (cells) => cells[header] })),
  };
  return { data: rows, rows, view };
}

/**
 * Writes the merged result of `runs`: each profile's own stderr lines led by `[profile]`, the text a command
 * wrote to stdout itself under a `== profile ==` line, then the results merged.
 */
export async function writeFleet(runs: readonly ProfileRun[], opts: MergeOptions): Promise<void> {
  const { stdout, stderr } = opts.streams;
  for (const run of runs) {
    const lines = run.stderr.split('\n').filter((l) => l !== '');
    for (const line of lines) stderr.write(`[${stderrSafe(run.profile)}] ${line}\n`);
  }
  const format = runs.flatMap((r) => r.printed)[0]?.format ?? opts.format;
  for (const run of runs) {
    if (run.stdout !== '') stdout.write(`== ${stderrSafe(run.profile)} ==\n${run.stdout}`);
  }
  if (!runs.some((r) => r.printed.length) && format !== 'json' && format !== 'ndjson') return;
  const out = await render(merged(runs, format), {
    format,
    query: opts.query,
    theme: opts.theme,
    width: opts.width,
    terminal: Boolean(stdout.isTTY),
  });
  if (out.stdout) stdout.write(out.stdout);
  if (out.note) stderr.write(`${out.note}\n`);
}
