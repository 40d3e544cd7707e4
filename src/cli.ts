// The CLI bundle's entry (dist/cli.cjs), started by src/boot.ts: the process-level duties around runCli.
import { ExitCode } from './errors.js';
import { fileWriteError } from './util/files.js';

export async function main(argv: string[]): Promise<void> {
  // `dlake … | head`: once the reader is gone there is nobody left to tell; stop quietly, as Unix tools do.
  // Any other failure to write it (standard output redirected to a full disk) is a local I/O failure:
  // one line, exit 9 (docs/cli-contract.md "Exit codes").
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    process.stderr.write(`error: ${fileWriteError('standard output', err).message}\n`);
    process.exit(ExitCode.localIO);
  });
  quietenProxyWarning();
  const { runCli } = await import('./runtime.js');
  const code = await runCli(argv, { env: process.env, streams: process });
  // Once the output is flushed, exit at once: undici leaves internal timers behind after its dispatcher
  // is closed, which would otherwise hold the process ~50 ms for nothing (measured in bench/startup.ts).
  await Promise.all([flush(process.stdout), flush(process.stderr)]);
  process.exit(code);
}

/**
 * undici announces its SOCKS5 proxy support as experimental on stderr the first time a `socks5://` proxy from
 * HTTPS_PROXY is used: a line that is not dlake's, in the middle of its output, about something the user cannot
 * change. That one warning is dropped; every other is Node's to print.
 */
function quietenProxyWarning(): void {
  const emit = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning?.message;
    if (/SOCKS5? proxy support is experimental/i.test(String(text))) return;
    emit(warning, ...rest);
  }) as typeof process.emitWarning;
}

function flush(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write('', () => resolve()));
}
