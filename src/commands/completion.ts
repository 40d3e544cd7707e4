// `dlake completion bash|zsh|fish`: prints the completion script, generated from the live command tree (every
// group is loaded for this command, see groupsNamed), so it always matches the committed completions/ files.
import { Argument, type Command, Option } from '@commander-js/extra-typings';
import { completionScript, SHELLS, type Shell } from '../completion/generate.js';
import { profileNames } from '../completion/profiles.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { examples } from './common.js';
import type { Declare, OptionsOf } from './define.js';

const declaration = (completion: Command) =>
  completion
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
    );

/** The script is generated from the tree this command belongs to: the root, with every group loaded. */
export const register: Declare = (completion, rt) =>
  declaration(completion).action(
    rt.action(async (ctx: Context, shell: Shell | undefined, opts: OptionsOf<typeof declaration>) => {
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
      const root = completion.parent ?? completion;
      ctx.streams.stdout.write(completionScript(shell, root));
    }),
  );
