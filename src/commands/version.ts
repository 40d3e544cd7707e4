// `dlake version`: the version, as `dlake --version` prints it (as `gh version` and `kubectl version` exist
// beside their flags). Needs no profile, store or network.
import type { Command } from 'commander';
import type { Runtime } from '../runtime.js';

export function register(program: Command, rt: Runtime): void {
  program
    .command('version')
    .description('Print the version (as --version does)')
    .action(() => {
      rt.world.streams.stdout.write(`${__DLAKE_VERSION__}\n`);
    });
}
