// Entry point of the bundled CLI. `--version` answers before anything else is loaded; everything else
// goes through the commander tree in runtime.ts (a separate chunk).
import { setFlagsFromString } from 'node:v8';

export async function main(argv: string[]): Promise<void> {
  const args = argv.slice(2);
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    process.stdout.write(`${__DLAKE_VERSION__}\n`);
    return;
  }
  // `dlake … | head`: once the reader is gone there is nobody left to tell; stop quietly, as Unix tools do.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  // undici parses HTTP with llhttp compiled to WebAssembly. V8 then optimizes it on background threads, and
  // Node waits for that work before it exits: ~170 ms on every command that made a request (bench/startup.ts).
  // V8's baseline WebAssembly compiler alone is ample for a CLI's requests; set before undici is loaded.
  setFlagsFromString('--liftoff-only');
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
