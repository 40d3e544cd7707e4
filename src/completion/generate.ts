// Completion scripts for bash, zsh and fish, generated from the commander tree itself (style.md practice 10):
// a command, alias, option or `.choices()` value added to the tree shows up in the scripts at the next
// `npm run completions`, and test/unit/completion.test.ts fails until the committed files are regenerated.
//
// Why our own walker rather than @bomb.sh/tab: tab's scripts call back into the CLI on every Tab press,
// which would start node and load every command group each time; these scripts are static tables plus a
// small walk in each shell, and only profile names (local state) need a call to dlake.
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { bashScript } from './bash.js';
import { fishScript } from './fish.js';
import { completionModel } from './model.js';
import { zshScript } from './zsh.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** Where each script is committed, relative to the repository root (and shipped in the package). */
export const COMPLETION_FILES: Record<Shell, string> = {
  bash: 'completions/dlake.bash',
  zsh: 'completions/_dlake',
  fish: 'completions/dlake.fish',
};

/** The script for `shell`, from a root command on which every group is registered. */
export function completionScript(shell: Shell, program: CommandUnknownOpts): string {
  const model = completionModel(program);
  return { bash: bashScript, zsh: zshScript, fish: fishScript }[shell](model);
}
