// `dlake catalog tags REF [--set T…|--clear]`: show the tags of an entity, or replace them.
import { type Command, Option } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { formatPath } from '../../util/catalog-ref.js';
import { examples, send } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { repeatable } from '../options.js';
import { dryRunOption, idOption, refOf } from './options.js';

const declaration = (catalog: Command) =>
  catalog
    .command('tags')
    .description('Show the tags of a source, space or dataset, or replace them (sending the current version)')
    .argument('<ref>', 'path or id')
    .addOption(idOption())
    .option('--set <tag>', 'the new tags, replacing the current ones (repeatable)', repeatable('--set'))
    .addOption(new Option('--clear', 'remove all tags').conflicts('set'))
    .addOption(dryRunOption())
    .addHelpText(
      'after',
      examples(
        'dlake catalog tags Sales/v_sales',
        'dlake catalog tags Sales/v_sales --set finance --set gold',
        'dlake catalog tags Sales/v_sales --clear',
      ),
    );

export const register = defineCommand(declaration, tags);

/** The service's 400 for an entity that cannot have tags, said with the entity's path. */
function tagsRefused(what: string) {
  return (err: unknown): never => {
    if (err instanceof UsageError) {
      throw new UsageError(`${what}: ${err.message}`, {
        hint: 'tags belong on sources, spaces and datasets, not on folders, homes or files',
        details: err.details,
        moreInfo: err.moreInfo,
      });
    }
    throw err;
  };
}

async function tags(ctx: Context, refArg: string, opts: OptionsOf<typeof declaration>): Promise<void> {
  const ref = refOf(refArg, opts);
  const api = await import('../../api/catalog.js');
  const client = await ctx.client();
  const current = await api.resolveRef(client, ref, { exclude: ['children'] });
  const path = formatPath(api.entityPath(current));
  const writing = Boolean(opts.set || opts.clear);
  const refused = tagsRefused(writing ? `cannot tag ${path}` : `cannot read the tags of ${path}`);
  const existing = await api.getTags(client, current.id).catch(refused);
  const view = (empty: string) => ({ columns: [{ header: 'TAG', value: (t: string) => t }], empty });
  if (!writing) {
    const data = existing ?? { tags: [] };
    return ctx.print({ data, rows: data.tags, view: view(`${path} has no tags.`) });
  }
  const wanted = opts.clear ? [] : [...new Set(opts.set)];
  const saved = await send(
    ctx,
    {
      request: api.setTagsRequest(current.id, wanted, existing?.version),
      send: () => api.setTags(client, current.id, wanted, existing?.version).catch(refused),
    },
    { dryRun: opts.dryRun },
  );
  if (!saved) return;
  ctx.ui.notice(wanted.length ? `Tagged ${path}: ${saved.tags.join(', ')}.` : `Removed the tags of ${path}.`);
  await ctx.print({ data: saved, rows: saved.tags, view: view('') });
}
