// `dlake catalog grants REF [--grant …] [--revoke …]`: privileges per user and role on an entity, or changed
// (read, merge, write back whole: the service's PUT replaces every grant).
import type { Command } from '@commander-js/extra-typings';
import type { Grant, GrantSpec, ResolvedSpec } from '../../api/grants.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { formatPath } from '../../util/catalog-ref.js';
import { examples, send } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { repeatable } from '../options.js';
import { idOption, refOf } from './options.js';

const declaration = (catalog: Command) =>
  catalog
    .command('grants')
    .description('Show the privileges users and roles hold on an entity, or change them (Enterprise)')
    .argument('<ref>', 'path or id')
    .addOption(idOption())
    .option(
      '--grant <spec>',
      'give privileges: user:NAME:PRIV,… or role:NAME:PRIV,… (repeatable)',
      repeatable('--grant'),
    )
    .option('--revoke <spec>', 'take privileges away, same form (repeatable)', repeatable('--revoke'))
    .option('--dry-run', 'print the request instead of sending it (the grants are still read)')
    .addHelpText(
      'after',
      examples(
        'dlake catalog grants Sales/orders',
        'dlake catalog grants Sales/orders --grant role:analysts:SELECT,VIEW_REFLECTION',
        'dlake catalog grants Sales --grant user:bob:SELECT --revoke role:interns:SELECT',
      ),
    );

export const register = defineCommand(declaration, grants);

async function grants(ctx: Context, ref: string, opts: OptionsOf<typeof declaration>): Promise<void> {
  const [api, { resolveRef }] = await Promise.all([
    import('../../api/grants.js'),
    import('../../api/catalog.js'),
  ]);
  const grant = (opts.grant ?? []).map((v) => parseGrantSpec(v, '--grant'));
  const revoke = (opts.revoke ?? []).map((v) => parseGrantSpec(v, '--revoke'));
  const client = await ctx.client();
  const entity = await resolveRef(client, refOf(ref, opts), { exclude: ['children'] });
  const shown = entity.path ? formatPath(entity.path) : ref;
  const current = await api.getGrants(client, entity.id);
  if (grant.length === 0 && revoke.length === 0) return printGrants(ctx, current);

  const [{ lookupUser }, { resolveRole }] = await Promise.all([
    import('../../api/users.js'),
    import('../../api/roles.js'),
  ]);
  const resolve = async (s: (typeof grant)[number]): Promise<ResolvedSpec> => ({
    ...s,
    id: (s.kind === 'user' ? await lookupUser(client, s.name) : await resolveRole(client, s.name)).id,
  });
  const [g, r] = await Promise.all([Promise.all(grant.map(resolve)), Promise.all(revoke.map(resolve))]);
  const merged = api.mergeGrants(current, g, r);
  if (merged.changed.length === 0) {
    ctx.ui.notice(`Nothing to change: the grants on ${shown} are already as asked.`);
    return printGrants(ctx, current);
  }
  await send(
    ctx,
    {
      request: api.setGrantsRequest(entity.id, merged.body),
      send: (c) => api.setGrants(c, entity.id, merged.body),
    },
    { dryRun: opts.dryRun },
  );
  if (opts.dryRun) return;
  await printGrants(ctx, await api.getGrants(client, entity.id));
  ctx.ui.notice(`Changed the grants on ${shown}: ${merged.changed.join(', ')}.`);
}

function printGrants(ctx: Context, g: import('../../api/grants.js').Grants): Promise<void> {
  return ctx.print<Grant>({
    data: g,
    rows: g.grants,
    view: {
      empty: 'No grants.',
      columns: [
        { header: 'TYPE', value: (x) => x.granteeType },
        { header: 'NAME', value: (x) => x.name ?? x.id },
        { header: 'PRIVILEGES', value: (x) => x.privileges.join(', ') },
      ],
    },
  });
}

/** `user:NAME:PRIV,…` or `role:NAME:PRIV,…` (privileges in any case). */
function parseGrantSpec(value: string, flag: string): GrantSpec {
  const first = value.indexOf(':');
  const last = value.lastIndexOf(':');
  const kind = value.slice(0, first).trim().toLowerCase();
  const name = value.slice(first + 1, last).trim();
  const privileges = value
    .slice(last + 1)
    .split(',')
    .map((p) => p.trim().toUpperCase())
    .filter(Boolean);
  if (
    first < 0 ||
    first === last ||
    (kind !== 'user' && kind !== 'role') ||
    !name ||
    privileges.length === 0
  ) {
    throw new UsageError(`${flag} "${value}" is not user:NAME:PRIV,… or role:NAME:PRIV,…`, {
      hint: `e.g. ${flag} role:analysts:SELECT,VIEW_REFLECTION`,
    });
  }
  return { kind, name, privileges };
}
