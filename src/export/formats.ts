// The one table of export formats (docs/cli-contract.md "Export at scale"): each format's name, the file names
// that choose it, whether it may be gzipped as it streams, and the module that writes it (formatter.ts's one
// interface), loaded only when that format is asked for. Everything that lists, chooses or loads a format reads
// it from here: `--format`'s choices, the format a file name suggests, the formatters of REST pages and of Arrow
// batches. Light: the command line reads it to declare `--format`.
import { UsageError } from '../errors.js';
import type { ExportFormatModule } from './formatter.js';

interface FormatEntry {
  /** File name extensions that choose the format (without their dot, lower case). */
  extensions: readonly string[];
  /** Gzipped as it streams when FILE ends in `.gz` (Parquet compresses its own pages). */
  gzip: boolean;
  /** Its name in messages. */
  title: string;
  /** A row a line, each line whole (CSV after its header, NDJSON): a text cut at a line end holds whole rows. */
  lines: boolean;
  /**
   * It keeps what a piece refers to after `format` returns (Parquet: a row group's values until the group is
   * written), so an Arrow batch's buffer must not be filled again with a later batch (flight/result.ts `reuse`).
   */
  holdsBatches: boolean;
  /**
   * How standard output shows it on a terminal (stdout-sink.ts): with CSV's or JSON's escapes of control and
   * invisible characters, or not at all (binary: any byte could be a terminal's escape sequence).
   */
  terminal: 'csv' | 'json' | 'binary';
  /** Its module, loaded the first time it is asked for. */
  load(): Promise<ExportFormatModule>;
}

const EXPORT_FORMATS = {
  csv: {
    extensions: ['csv'],
    gzip: true,
    title: 'CSV',
    lines: true,
    holdsBatches: false,
    terminal: 'csv',
    load: () => import('./csv.js').then((m) => m.csv),
  },
  json: {
    extensions: ['json'],
    gzip: true,
    title: 'JSON',
    lines: false,
    holdsBatches: false,
    terminal: 'json',
    load: () => import('./json.js').then((m) => m.json),
  },
  ndjson: {
    extensions: ['ndjson', 'jsonl'],
    gzip: true,
    title: 'NDJSON',
    lines: true,
    holdsBatches: false,
    terminal: 'json',
    load: () => import('./json.js').then((m) => m.ndjson),
  },
  parquet: {
    extensions: ['parquet'],
    gzip: false,
    title: 'Parquet',
    lines: false,
    holdsBatches: true,
    terminal: 'binary',
    load: () => import('./parquet.js').then((m) => m.parquet),
  },
} as const satisfies Record<string, FormatEntry>;

export type ExportFormat = keyof typeof EXPORT_FORMATS;

/** The formats whose rows are whole lines (`lines` in the table). */
export type LineFormat = {
  [F in ExportFormat]: (typeof EXPORT_FORMATS)[F]['lines'] extends true ? F : never;
}[ExportFormat];

/** The module that writes `format`. */
export const formatModule = (format: ExportFormat): Promise<ExportFormatModule> =>
  EXPORT_FORMATS[format].load();

/** What the table says of `format`. */
export const formatEntry = (format: ExportFormat): FormatEntry => EXPORT_FORMATS[format];

/** The formats' names, in the table's order (`--format`'s choices). */
export const EXPORT_FORMAT_NAMES = Object.keys(EXPORT_FORMATS) as ExportFormat[];

/** The format a file name suggests by its extension (`.csv`, `.json`, `.ndjson`/`.jsonl`, `.parquet`), if any. */
export function formatFromFileName(file: string): ExportFormat | undefined {
  const ext = /\.([a-z]+)$/i.exec(file)?.[1]?.toLowerCase();
  return EXPORT_FORMAT_NAMES.find((f) =>
    (EXPORT_FORMATS[f].extensions as readonly string[]).includes(ext ?? ''),
  );
}

export interface ExportSpec {
  format: ExportFormat;
  /** FILE ends in `.gz`: the text is gzipped as it streams. */
  gzip: boolean;
  /** `--no-clobber`: a FILE that exists is kept, and the export refused (exit 2). */
  noClobber?: boolean;
}

/**
 * What an export to `file` writes: `--format` if given, else the extension under a final `.gz`, else CSV. A
 * format that compresses its own pages (Parquet) in a `.gz` FILE is refused (exit 2).
 */
export function exportSpec(file: string, explicit?: ExportFormat, noClobber = false): ExportSpec {
  const gzip = file !== '-' && /\.gz$/i.test(file);
  const format = explicit ?? formatFromFileName(gzip ? file.slice(0, -3) : file) ?? 'csv';
  if (gzip && !EXPORT_FORMATS[format].gzip) {
    const { title } = EXPORT_FORMATS[format];
    const others = EXPORT_FORMAT_NAMES.filter((f) => EXPORT_FORMATS[f].gzip);
    throw new UsageError(`cannot gzip a ${title} export (${file}): ${title} compresses its own pages`, {
      hint: `drop the .gz from --out, or choose --format ${others.slice(0, -1).join(', ')} or ${others.at(-1)}`,
    });
  }
  return noClobber ? { format, gzip, noClobber } : { format, gzip };
}
