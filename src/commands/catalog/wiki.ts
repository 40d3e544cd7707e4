// `dlake catalog wiki REF [--set-file F]`: show the wiki text of an entity, or replace it.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { readStdin } from '../../output/prompt.js';
import { formatPath } from '../../util/catalog-ref.js';
import { readTextFile } from '../../util/files.js';
import { examples, send } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { dryRunOption, idOption, refOf } from './options.js';

const declaration = (catalog: Command) =>
  catalog
    .command('wiki')
    .description('Show the wiki text of an entity, or replace it (sending the current version)')
    .argument('<ref>', 'path or id')
    .addOption(idOption())
    .option('--set-file <file>', 'the new text (Markdown); - reads standard input')
    .addOption(dryRunOption())
    .addHelpText(
      'after',
      examples(
        'dlake catalog wiki Sales',
        'dlake catalog wiki Sales --set-file README.md',
        'echo "# Sales" | dlake catalog wiki Sales --set-file -',
      ),
    );

export const register = defineCommand(declaration, wiki);

async function readText(ctx: Context, file: string): Promise<string> {
  if (file === '-') return readStdin(ctx.streams.stdin);
  return readTextFile(file);
}

async function wiki(ctx: Context, refArg: string, opts: OptionsOf<typeof declaration>): Promise<void> {
  const ref = refOf(refArg, opts);
  const text = opts.setFile === undefined ? undefined : await readText(ctx, opts.setFile);
  const api = await import('../../api/catalog.js');
  const client = await ctx.client();
  const current = await api.resolveRef(client, ref, { exclude: ['children'] });
  const path = formatPath(api.entityPath(current));
  const existing = await api.getWiki(client, current.id);
  if (text === undefined) {
    if (!existing) ctx.ui.notice(`${path} has no wiki text.`);
    const data = existing ?? { text: '' };
    // The text is Markdown: a table of it would be useless, so the table format prints it as it is.
    if (ctx.format === 'table' && !ctx.opts.query) {
      if (!data.text) return;
      const text = data.text.endsWith('\n') ? data.text : `${data.text}\n`;
      // On a terminal its control and invisible characters are shown, as CSV's are; a file or a pipe gets it as it is.
      const { stderrSafe } = await import('../../output/safe-text.js');
      ctx.streams.stdout.write(ctx.streams.stdout.isTTY ? stderrSafe(text) : text);
      return;
    }
    return ctx.print({ data });
  }
  const saved = await send(
    ctx,
    {
      request: api.setWikiRequest(current.id, text, existing?.version),
      send: () => api.setWiki(client, current.id, text, existing?.version),
    },
    { dryRun: opts.dryRun },
  );
  if (!saved) return;
  ctx.ui.notice(`Saved the wiki of ${path} (version ${saved.version ?? 0}).`);
  await ctx.print({
    data: saved,
    rows: [saved],
    view: {
      columns: [
        { header: 'VERSION', value: (w: { version?: string | number }) => w.version },
        { header: 'CHARACTERS', value: (w: { text: string }) => w.text.length },
      ],
    },
  });
}
