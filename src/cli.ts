// The CLI bundle's entry (dist/cli.cjs), started by src/boot.ts: the process-level duties around runCli.
export async function main(argv: string[]): Promise<void> {
  // `dlake … | head`: once the reader is gone there is nobody left to tell; stop quietly, as Unix tools do.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  const { runCli } = await import('./runtime.js');
  const code = await runCli(argv, { env: process.env, streams: process });
  // Once the output is flushed, exit at once: undici leaves internal timers behind after its dispatcher
  // is closed, which would otherwise hold the process ~50 ms for nothing (measured in bench/startup.ts).
  await Promise.all([flush(process.stdout), flush(process.stderr)]);
  process.exit(code);
}

function flush(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write('', () => resolve()));
}
