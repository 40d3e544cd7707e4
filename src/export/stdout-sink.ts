// Standard output as a sink: written as a stream, waiting for it to drain (the backpressure that stops the page
// fetching from running ahead of the reader); a reader that goes away (`| head`) ends the export quietly.
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { InterruptedError, UsageError } from '../errors.js';
import { jsonTerminalSafe, stderrSafe } from '../output/safe-text.js';
import { fileWriteError } from '../util/files.js';
import { type ExportFormat, formatEntry } from './formats.js';
import { OutputClosedError, ownCopy, type Sink, TakenRows } from './sink.js';

/**
 * What is written to standard output, for what a terminal is shown of it (docs/cli-contract.md "Output
 * bounds"): CSV with its control and invisible characters as symbols, JSON and NDJSON with the C1 controls and
 * invisible characters escaped, as `-o csv` and `-o json` show them; binary data (Parquet, a zip, an archive) is
 * refused, since any byte of it could be a terminal's escape sequence. To a pipe or a file, the bytes as they
 * are. Undefined: text the caller has made safe itself.
 */
export type StdoutContent = ExportFormat | 'binary';

export function stdoutSink(stdout: Writable, content?: StdoutContent): Sink {
  if (!isTerminal(stdout) || content === undefined) return new StreamTarget('standard output', stdout);
  checkStdout(stdout, content);
  return new StreamTarget(
    'standard output',
    stdout,
    shownAs(content) === 'csv' ? stderrSafe : jsonTerminalSafe,
  );
}

const isTerminal = (stdout: Writable) => (stdout as { isTTY?: boolean }).isTTY === true;

/** How a terminal is shown `content` (`terminal` in the table of formats). */
const shownAs = (content: StdoutContent) => (content === 'binary' ? 'binary' : formatEntry(content).terminal);

/** Binary data for a terminal on standard output: refused (exit 2), said before the query runs. */
export function checkStdout(stdout: Writable, content: StdoutContent): void {
  if (!isTerminal(stdout) || shownAs(content) !== 'binary') return;
  throw new UsageError(
    `dlake does not write ${content === 'binary' ? 'binary data' : formatEntry(content).title} to a terminal`,
    {
      hint: 'redirect standard output (> FILE, | …), or name a file with --out FILE',
    },
  );
}

class StreamTarget implements Sink {
  readonly isFile: boolean;
  readonly resumed = false;
  protected failure?: Error;

  /** UTF-8 decoded across chunks, for `shown` (a character may be split between two). */
  private readonly decoder = new TextDecoder();

  constructor(
    readonly name: string,
    protected readonly stream: Writable,
    /** What a terminal is shown of the text (undefined: the bytes as they are). */
    private readonly shown?: (text: string) => string,
  ) {
    this.isFile = name !== 'standard output';
    // Errors may surface between writes; the next write or the commit reports them.
    stream.on('error', (e) => {
      this.failure ??= e;
    });
  }

  /** Chunks handed to the stream, and the rows they hold as the stream takes them (its write callbacks, in order). */
  private handed = 0;
  private readonly taken = new TakenRows();

  async write(chunk: string | Uint8Array, signal?: AbortSignal): Promise<void> {
    this.check();
    if (chunk.length === 0) return;
    const n = ++this.handed;
    const took = (e?: Error | null) => {
      if (!e) this.taken.took(n);
    };
    if (this.into().write(this.shown ? this.shown(this.text(chunk)) : ownCopy(chunk), took)) return;
    await this.drained(this.into(), signal);
  }

  private text(chunk: string | Uint8Array): string {
    return typeof chunk === 'string'
      ? this.decoder.decode() + chunk
      : this.decoder.decode(chunk, { stream: true });
  }

  mark(rows: number): void {
    this.taken.mark(rows, this.handed);
  }

  rowsTaken(): { rows: number; exact: boolean } {
    return { rows: this.taken.rows, exact: this.taken.all(this.handed) };
  }

  async checkpoint(_rows: number, _state?: unknown): Promise<void> {}

  async commit(): Promise<void> {
    this.check();
  }

  async discard(): Promise<void> {}

  async suspend(): Promise<number> {
    await this.discard();
    return 0;
  }

  /** Where writes go: the stream itself, or a gzip member in front of it. */
  protected into(): Writable {
    return this.stream;
  }

  protected async drained(w: Writable, signal?: AbortSignal): Promise<void> {
    try {
      await once(w, 'drain', { signal });
    } catch (e) {
      if ((e as Error).name === 'AbortError') throw new InterruptedError('interrupted');
      this.failure ??= e as Error;
    }
    this.check();
  }

  protected check(): void {
    const e = this.failure;
    if (!e) return;
    if (!this.isFile && (e as NodeJS.ErrnoException).code === 'EPIPE') throw new OutputClosedError();
    throw fileWriteError(this.name, e);
  }
}
