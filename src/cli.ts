// Entry point of the bundled CLI. `--version` answers before anything else is loaded; everything else
// goes through the commander tree in runtime.ts (a separate chunk).

export async function main(argv: string[]): Promise<void> {
  const args = argv.slice(2);
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    process.stdout.write(`${__DLAKE_VERSION__}\n`);
    return;
  }
  const { runCli } = await import('./runtime.js');
  process.exitCode = await runCli(argv, { env: process.env, streams: process });
}
