// Standard output as a sink: written as a stream, waiting for it to drain (the backpressure that stops the page
// fetching from running ahead of the reader); a reader that goes away (`| head`) ends the export quietly.
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { InterruptedError } from '../errors.js';
import { fileWriteError } from '../util/files.js';
import { OutputClosedError, ownCopy, type Sink, TakenRows } from './sink.js';

export function stdoutSink(stdout: Writable): Sink {
  return new StreamTarget('standard output', stdout);
}

class StreamTarget implements Sink {
  readonly isFile: boolean;
  readonly resumed = false;
  protected failure?: Error;

  constructor(
    readonly name: string,
    protected readonly stream: Writable,
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
    if (this.into().write(ownCopy(chunk), took)) return;
    await this.drained(this.into(), signal);
  }

  mark(rows: number): void {
    this.taken.mark(rows, this.handed);
  }

  rowsTaken(): number {
    return this.taken.rows;
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
