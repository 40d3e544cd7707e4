// `dlake describe [COMMAND...]`: the command tree as data (`-o json`) or readable text, read off the same
// commander declarations that parse the command line (src/describe/model.ts), for agents and scripts.
import type { Command, CommandUnknownOpts } from '@commander-js/extra-typings';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { nearest } from '../util/nearest.js';
import { examples } from './common.js';
import type { Declare } from './define.js';

const declaration = (describe: Command) =>
  describe
    .description(
      'Print the commands, their arguments, options and examples, the global options and the exit codes, as data (-o json) or text',
    )
    .argument('[command...]', 'the command to describe, e.g. job list (default: every command)')
    .addHelpText(
      'after',
      examples('dlake describe -o json', 'dlake describe job list -o json', 'dlake describe catalog'),
    );

/** The tree described is the one this command belongs to: the root, with the groups it names loaded. */
export const register: Declare = (describe, rt) =>
  declaration(describe).action(
    rt.action((ctx: Context, words: string[]) => describeCommand(ctx, describe.parent ?? describe, words)),
  );

async function describeCommand(ctx: Context, root: CommandUnknownOpts, words: string[]): Promise<void> {
  const { describeTree, findCommand } = await import('../describe/model.js');
  const found = findCommand(root, words);
  if ('unknown' in found) {
    const names = found.at.commands.map((c) => c.name());
    const near = nearest(found.unknown, names);
    const at = words.slice(0, words.indexOf(found.unknown));
    throw new UsageError(`unknown command '${['dlake', ...at, found.unknown].join(' ')}'`, {
      hint: near
        ? `did you mean \`dlake describe ${[...at, near].join(' ')}\`?`
        : `${['dlake', ...at].join(' ')} has: ${names.join(', ')}`,
    });
  }
  const description = describeTree(root, found.cmd, found.path);
  if (ctx.format === 'json' || ctx.format === 'ndjson' || ctx.opts.query) {
    return ctx.print({ data: description });
  }
  const { describeText } = await import('../describe/text.js');
  ctx.streams.stdout.write(describeText(description, words.length === 0));
}
