// Where an export goes: the one place `--out` is opened — standard output (`-` or the process's own, by any of its
// names) or a file (file-sink.ts: a regular file through FILE.partial, a device, pipe or socket as it is).
import type { Writable } from 'node:stream';
import { type FileTargetOptions, openFileSink } from './file-sink.js';
import type { Sink } from './sink.js';
import { isStdout } from './special-files.js';
import { type StdoutContent, stdoutSink } from './stdout-sink.js';

// What the commands, the shell and the tests use of the sinks, from the one module that opens `--out`.
export { openFileSink, readResumeRecord } from './file-sink.js';
export type { ResumeRecord, Sink } from './sink.js';
export { checkWritable, isStdout } from './special-files.js';
export { checkStdout, type StdoutContent, stdoutSink } from './stdout-sink.js';

/**
 * The sink `--out` names: standard output, or a file (the one place an export file is opened). `content` says
 * what a terminal on standard output is shown of it (stdout-sink.ts).
 */
export async function openSink(
  out: string,
  stdout: Writable,
  opts: FileTargetOptions & { content: StdoutContent },
): Promise<Sink> {
  return isStdout(out) ? stdoutSink(stdout, opts.content) : openFileSink(out, opts);
}
