// `dlake completion bash|zsh|fish`: prints the completion script, generated from the live command tree (every
// group is loaded for this command, see groupsNamed), so it always matches the committed completions/ files.
import { Argument, type Command, Option } from 'commander';
import { completionScript, SHELLS, type Shell } from '../completion/generate.js';
import { profileNames } from '../completion/profiles.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { Runtime } from '../runtime.js';
import { examples } from './common.js';

export function register(program: Command, rt: Runtime): void {
  program
    .command('completion')
    .description('Print a shell completion script (bash, zsh, fish)')
    .addArgument(new Argument('[shell]', 'the shell to complete in').choices(SHELLS))
    // Called by the scripts on Tab after -p/--profile: reads the local store only, never the network.
    .addOption(new Option('--list-profiles', 'print the profile names, one a line').hideHelp())
    .addHelpText(
      'after',
      examples(
        'dlake completion bash > /etc/bash_completion.d/dlake',
        'source <(dlake completion bash)              # in ~/.bashrc',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a zsh parameter expansion, shown as typed
        'dlake completion zsh > "${fpath[1]}/_dlake"   # then start a new shell',
        'dlake completion fish > ~/.config/fish/completions/dlake.fish',
      ),
    )
    .action(
      rt.action(async (ctx: Context, shell: Shell | undefined, opts: { listProfiles?: boolean }) => {
        if (opts.listProfiles) {
          const names = profileNames(ctx.store.configPath);
          if (names.length) ctx.streams.stdout.write(`${names.join('\n')}\n`);
          return;
        }
        if (!shell) {
          throw new UsageError('name the shell to complete in: bash, zsh or fish', {
            hint: 'dlake completion bash > /etc/bash_completion.d/dlake',
          });
        }
        ctx.streams.stdout.write(completionScript(shell, program));
      }),
    );
}
